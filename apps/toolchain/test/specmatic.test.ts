// Specmatic (the jar its npm package ships, on Java 17 or later) on the bundle, as a partner runs it: `specmatic
// test` against the reference server with the credential of each security scheme in the variable named after it
// (Specmatic's documented way), and `specmatic stub` answering from the contract's own examples. Its npm wrapper
// exits 0 whatever the result (and splits the report's lines, see specmaticCommand), so the verdict is read from
// the report: every failure it still reports must be one spec/README.md ("Partner toolchains") explains as the
// tool's reading; a new one fails here.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResponse, Contract } from '@cls-api/contract-tests';
import { sparePort } from '@cls-api/test-servers';
import { explained, failures, matches, operationsRun, totals } from '../src/specmatic-report.js';
import {
  BUNDLE,
  credentialsByScheme,
  model,
  obtainJwt,
  reference,
  run as runCommand,
  scratch,
  specmaticCommand,
  type ToolRun,
} from './support.js';

const README = resolve(import.meta.dirname, '../../../spec/README.md');

describe('Specmatic', () => {
  const dir = scratch('specmatic');
  let run: ToolRun;
  let output: string;
  let stubStart: ReturnType<typeof startStub> | undefined;
  let stub: Awaited<ReturnType<typeof startStub>> | undefined;

  beforeAll(async () => {
    // Specmatic writes its reports beside its working folder: the bundle is copied into a scratch folder.
    copyFileSync(BUNDLE, join(dir, 'openapi.json'));
    // Its own limit per request is 6 s; a busy machine's reference server may take longer, which is not a failure.
    writeFileSync(join(dir, 'specmatic.yaml'), 'version: 2\ntest:\n  timeoutInMilliseconds: 60000\n');
    const { baseUrl, seller } = reference();
    const jwt = await obtainJwt(baseUrl, seller);
    const env: Record<string, string> = {
      // One request per example, no combinations of optional keys (thousands on a 1,000-row bulk body).
      MAX_TEST_REQUEST_COMBINATIONS: '1',
    };
    for (const [name, { value }] of credentialsByScheme(seller, jwt)) env[name] = value;
    // The stub starts meanwhile; one that fails to start fails only its own test.
    const starting = startStub();
    starting.catch(() => undefined);
    run = await runCommand(...specmaticCommand(['test', 'openapi.json', '--testBaseURL', baseUrl]), { cwd: dir, env });
    stubStart = starting;
    output = `${run.stdout}\n${run.stderr}`;
    // Its whole report, for reading when a test below fails.
    writeFileSync(join(dir, 'specmatic-test.log'), output);
  });

  afterAll(async () => {
    // Stopped whether its test ran or not; one still starting is killed when the test process exits.
    await stubStart?.then(
      (s) => s.stop(),
      () => undefined,
    );
  });

  it('loads the bundle and runs every operation', () => {
    // What stopped it before: a schema it cannot type, a `$ref` with sibling keywords (`Type (MallOrderNo) does not exist`).
    expect(output).not.toMatch(/Type \(\w+\) does not exist|Could not load the specification/);
    const t = totals(output);
    expect(t, output.slice(-2000)).toBeDefined();
    expect(t!.run).toBeGreaterThan(0);
    expect(t!.errors, 'requests it could not complete').toBe(0);
    const all = model.operations.map((op) => `${op.method.toUpperCase()} ${op.path}`).sort();
    expect(operationsRun(output)).toEqual(all);
  });

  it('reports no failure spec/README.md does not explain, and every failure it explains as seen every run', () => {
    const rows = explained(readFileSync(README, 'utf8'));
    expect(rows.length).toBeGreaterThan(0);
    const seen = failures(output);
    expect(totals(output)!.failures === 0).toBe(seen.length === 0);
    const log = `Specmatic's report: ${join(dir, 'specmatic-test.log')}`;
    expect(
      seen.filter((f) => !rows.some((r) => matches(r.failure, f))),
      log,
    ).toEqual([]);
    expect(rows.filter((r) => r.everyRun && !seen.some((f) => matches(r.failure, f))).map((r) => r.failure)).toEqual(
      [],
    );
  });

  it('sends the credential of the operation’s area: no call is refused for its key or token', () => {
    const refused = failures(output).filter((f) => /answered 40[13]$/.test(f));
    // The token calls send the example's client credentials, which are no account's (see spec/README.md).
    expect(refused.filter((f) => !f.startsWith('POST /v3/auth/'))).toEqual([]);
  });

  it('its stub answers two operations within the contract, from the contract’s examples', async () => {
    stub = await stubStart;
    const contract = new Contract();
    for (const [operationId, area] of STUBBED) {
      const op = model.operation(operationId);
      const res = await fetch(`http://127.0.0.1:${stub!.port}${op.path}`, {
        method: op.method.toUpperCase(),
        headers: { 'X-API-Key': `${area}_test_0123456789abcdefghijklmnopqrstuv` },
      });
      const text = await res.text();
      const headers = Object.fromEntries([...res.headers].map(([k, v]) => [k.toLowerCase(), v]));
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {}
      const { findings } = checkResponse({
        contract,
        op,
        clockRelative: false,
        exchange: {
          request: { method: op.method.toUpperCase(), path: op.path, url: op.path, credential: { kind: 'none' } },
          response: { status: res.status, headers, text, json },
          ms: 0,
          attempt: 1,
        },
      });
      expect(res.status, `${operationId}: ${text.slice(0, 300)}\n${stub!.output().slice(-1500)}`).toBe(200);
      expect(
        findings.filter((f) => !f.provisional),
        operationId,
      ).toEqual([]);
    }
  });

  /** The stub on a spare port, with one example file per stubbed operation made from the contract's 200 example. */
  async function startStub() {
    const stubDir = join(dir, 'stub');
    mkdirSync(join(stubDir, 'openapi_examples'), { recursive: true });
    copyFileSync(BUNDLE, join(stubDir, 'openapi.json'));
    for (const [operationId] of STUBBED) {
      const op = model.operation(operationId);
      const example = Object.values(op.responses['200']?.examples ?? {})[0];
      if (!example) throw new Error(`${operationId} has no example of its 200 answer`);
      writeFileSync(
        join(stubDir, 'openapi_examples', `${operationId}.json`),
        JSON.stringify({
          'http-request': { method: op.method.toUpperCase(), path: op.path },
          'http-response': { status: 200, body: example.value },
        }),
      );
    }
    const port = await sparePort();
    let log = '';
    const child = spawn(...specmaticCommand(['stub', 'openapi.json', '--port', String(port)]), {
      cwd: stubDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, stopped as one
    });
    child.stdout.on('data', (c: Buffer) => (log = (log + c.toString('utf8')).slice(-20_000)));
    child.stderr.on('data', (c: Buffer) => (log = (log + c.toString('utf8')).slice(-20_000)));
    const group = child.pid!;
    const alive = () => {
      try {
        process.kill(-group, 0);
        return true;
      } catch {
        return false;
      }
    };
    // The JVM may take its time over SIGTERM: after 10 s the group is killed.
    const stop = async () => {
      if (!alive()) return;
      process.kill(-group, 'SIGTERM');
      for (let waited = 0; waited < 10_000 && alive(); waited += 200) await new Promise((r) => setTimeout(r, 200));
      if (alive()) process.kill(-group, 'SIGKILL');
    };
    process.once('exit', () => {
      if (alive()) process.kill(-group, 'SIGKILL');
    });
    // A guard, not a speed test: a stub that has not started in 10 minutes will not.
    for (let waited = 0; !/Mock server is running on/.test(log); waited += 500) {
      if (child.exitCode !== null) throw new Error(`specmatic stub exited ${child.exitCode}:\n${log.slice(-2000)}`);
      if (waited >= 600_000) {
        await stop();
        throw new Error(`specmatic stub did not start in 10 minutes:\n${log.slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    return { port, stop, output: () => log };
  }
});

/** The operations the stub answers, with the area of the key a partner sends. */
const STUBBED = [
  ['listSuppliers', 'wms'],
  ['listManagerOrders', 'manager'],
] as const;
