#!/usr/bin/env node
// `node scripts/with-load.mjs [--loops N] [--] <command> [arguments…]`: runs the command with N busy loops beside it
// for its whole run (default: one per core), each a Node process spinning at normal priority, and exits with the
// command's exit code. CI runs `pnpm -s test` under it: the suites must stay green on a runner whose cores another
// CPU-heavy job shares, not only on an idle machine.
//
// A loop ends with the command, on Ctrl-C or SIGTERM to this process, and on its own when this process is gone
// (killed with -9): it looks at its parent every few million turns, so no loop outlives the run.
import { spawn } from 'node:child_process';
import { availableParallelism, constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

const USAGE = `Usage: node scripts/with-load.mjs [--loops N] [--] <command> [arguments…]

Runs the command with N busy loops beside it (default: one per core, here ${availableParallelism()}), and exits with
the command's exit code.`;

/** The loops' count and the command, from the arguments; an error message for a wrong one. */
export function parseArguments(args, cores = availableParallelism()) {
  let loops = cores;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      i += 1;
      break;
    }
    if (arg === '--help' || arg === '-h') return { help: true };
    const value = arg === '--loops' ? args[++i] : arg.startsWith('--loops=') ? arg.slice(8) : undefined;
    if (value !== undefined) {
      if (!/^\d+$/.test(value)) return { error: `--loops takes a whole number, not '${value}'` };
      loops = Number(value);
      continue;
    }
    if (arg.startsWith('-')) return { error: `Unknown option '${arg}'` };
    break;
  }
  const command = args.slice(i);
  if (command.length === 0) return { error: 'no command to run' };
  return { loops, command };
}

/**
 * The source of one busy loop: spins, and every 2^24 turns (tens of milliseconds) ends itself when its parent is no
 * longer `parent` (the load's owner was killed and the loop was handed to another process).
 */
export function loopSource(parent) {
  return `const p=${Number(parent)};for(let i=1;;i=(i+1)|0)if((i&0xffffff)===0&&process.ppid!==p)process.exit(0);`;
}

/** Starts `count` busy loops, children of this process; returns them. */
export function startLoops(count) {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', loopSource(process.pid)], { stdio: 'ignore' }),
  );
}

function main() {
  const parsed = parseArguments(process.argv.slice(2));
  if (parsed.help) {
    console.log(USAGE);
    return;
  }
  if (parsed.error) {
    console.error(`with-load: ${parsed.error}\n\n${USAGE}`);
    process.exit(2);
  }
  const loops = startLoops(parsed.loops);
  // Resolves once every loop has ended, so that none still runs when this process exits.
  const stopLoops = () =>
    Promise.all(
      loops.map((loop) =>
        loop.exitCode !== null || loop.signalCode !== null
          ? undefined
          : new Promise((done) => {
              loop.once('exit', done);
              loop.kill('SIGKILL');
            }),
      ),
    );
  console.error(`with-load: ${parsed.loops} busy loop(s) beside: ${parsed.command.join(' ')}`);
  const child = spawn(parsed.command[0], parsed.command.slice(1), { stdio: 'inherit' });
  // Ctrl-C reaches the command directly (same process group); this process waits for it to end, then stops the loops.
  // SIGTERM sent to this process alone is passed on.
  process.on('SIGINT', () => {});
  process.on('SIGHUP', () => {});
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.once('error', async (error) => {
    await stopLoops();
    console.error(`with-load: ${parsed.command[0]}: ${error.message}`);
    process.exit(127);
  });
  child.once('exit', async (code, signal) => {
    await stopLoops();
    process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
