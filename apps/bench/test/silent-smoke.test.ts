// The silent scenario end to end, as `pnpm bench --only silent` runs it, with one short round: the report's structure
// and that every call was answered, never its performance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUICK } from '../src/options.js';
import { type CliRun, runCli } from './run-cli.js';

let run: CliRun;

beforeAll(async () => {
  run = await runCli(['--quick', '--only', 'silent']);
});

afterAll(async () => {
  await run?.cleanup();
});

describe('pnpm bench --quick --only silent', () => {
  it('times the calls with none held and with the silent connections held, every one answered', () => {
    expect(run.exitCode, run.output).toBe(0);
    expect(run.report.results.errors).toEqual({});
    const s = run.report.results.silent!;
    expect(s.held).toBe(QUICK.silent.held);
    expect(s.rounds).toHaveLength(QUICK.silent.rounds);
    const [round] = s.rounds;
    expect(round!.failed).toBe(0);
    expect(s.valid).toBe(true);
    // The server closed none of them: it has descriptors to spare, and silence alone never closes a connection.
    expect(round!.heldOpenAtEnd).toBe(QUICK.silent.held);
    expect(s.ratio).toBe(round!.heldCallsPerSecond / round!.noneCallsPerSecond);
    const own = run.report.targets.filter((t) => t.scenario === 'silent');
    expect(own.map((t) => [t.id, t.status])).toEqual([['silent-held', 'reported']]);
  });

  it('writes the round into the Markdown report', () => {
    expect(run.markdown).toContain('## New connections while many connections that have sent nothing are held open');
    expect(run.markdown).toMatch(/\| 1 \| [\d,]+ \| [\d,]+ \| 1,000 \| [\d.]+ × \| 0 \|/);
  });
});
