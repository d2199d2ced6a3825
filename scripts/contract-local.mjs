#!/usr/bin/env node
// `pnpm contract:local [kit options…]`: the contract-test kit (`pnpm contract`) against the demo server this checkout
// runs (`pnpm start` or `pnpm reference serve --demo`), with the demo credentials that server's first start kept in
// demo-keys.json: the first demo seller's test keys and client as the account under test, the second seller's as the
// other account of the isolation checks. The address and the file follow the same PORT, HOST, DATABASE and DATA_DIR
// as the server; `--base-url` or CLS_BASE_URL names another address. Every other argument goes to the kit as it is.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importExport } from './workspace.mjs';

const root = resolve(import.meta.dirname, '..');

/**
 * The kit's environment for the demo accounts (`{"accounts": […]}` as `seed --json` prints them): CLS_API_KEYS and
 * CLS_CLIENT_ID/SECRET from the first account's test environment, CLS_OTHER_… from the second's.
 */
export function demoEnvironment(demo) {
  const [primary, other] = demo?.accounts ?? [];
  if (!primary) return undefined;
  const env = {};
  const of = (account, keys, id, secret) => {
    const testKeys = (account.api_keys ?? []).filter((k) => k.env === 'test').map((k) => k.api_key);
    if (testKeys.length > 0) env[keys] = testKeys.join(',');
    const client = (account.clients ?? []).find((c) => c.env === 'test');
    if (client) {
      env[id] = client.client_id;
      env[secret] = client.client_secret;
    }
  };
  of(primary, 'CLS_API_KEYS', 'CLS_CLIENT_ID', 'CLS_CLIENT_SECRET');
  if (other) of(other, 'CLS_OTHER_API_KEYS', 'CLS_OTHER_CLIENT_ID', 'CLS_OTHER_CLIENT_SECRET');
  return env;
}

/** The address `pnpm start` and `pnpm reference serve` listen on with these variables. */
export function localBaseUrl(env) {
  const host = env.HOST && env.HOST !== '0.0.0.0' && env.HOST !== '::' ? env.HOST : '127.0.0.1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${Number(env.PORT ?? 3000)}`;
}

async function main(args) {
  if (args.includes('--help') || args.includes('-h')) return kit(args, {});
  // The reference's own rule for where its demo credentials are (as `serve --demo`, `seed` and `pnpm start` keep
  // them); it is built once a demo server has run from this checkout, and without one there are no credentials.
  let demoKeysPath;
  try {
    ({ demoKeysPath } = await importExport('@cls-api/reference'));
  } catch {
    return noDemo('the reference server is not built yet');
  }
  const file = demoKeysPath(process.env, root);
  if (!file || !existsSync(file)) return noDemo(`no demo credentials in ${file ?? 'an in-memory database'}`);
  const env = demoEnvironment(JSON.parse(readFileSync(file, 'utf8')));
  if (!env) return noDemo(`${file} holds no demo account`);
  const named = args.some((a) => a === '--base-url' || a.startsWith('--base-url=')) || process.env.CLS_BASE_URL;
  return kit([...(named ? [] : ['--base-url', localBaseUrl(process.env)]), ...args], env);
}

/** `pnpm contract …` (built first, as every package command) with the demo's credentials in its environment. */
function kit(args, env) {
  const run = spawnSync(process.execPath, [resolve(root, 'scripts', 'run-cli.mjs'), 'cls-contract', ...args], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  return run.status ?? 1;
}

function noDemo(why) {
  console.error(
    `contract:local: ${why}. Start the demo server first (pnpm start, or pnpm reference serve --demo), then run this again.`,
  );
  return 2;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // Ctrl-C reaches the kit directly (same process group); this process only passes on its exit.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => {});
  process.exit(await main(process.argv.slice(2)));
}
