// The hostile-request corpus (corpus/*.http) against the three servers we ship, as real processes: every answer of
// the API servers is the error envelope with a status and code the contract uses, the docs server answers a 4xx,
// each server still serves afterwards, and the reference server wrote nothing for any of it.
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalog, loadSpec } from '@cls-api/spec';
import { loadCorpus, render, type HostileCase, type ServerName } from '../src/corpus.js';
import { docsCli, mockCli, rawRequest, referenceCli, startProcess, tempDir, type Running } from './support.js';

const corpus = loadCorpus(resolve(import.meta.dirname, '../corpus'));
const catalog = errorCatalog(loadSpec());
const contractStatuses = new Set([...catalog.values()].map((e) => e.status));
/** The contract's `Text`: one line, no control characters. */
const TEXT = /^[^\x00-\x1F\x7F]{0,1000}$/;

const servers = new Map<ServerName, Running>();
const values = new Map<ServerName, Record<string, string>>();
let database: string;

/** Rows of every table but the ones a rejected request may rightly touch (usage counters, request log). */
function rowCounts(): Record<string, number> {
  const db = new Database(database, { readonly: true, fileMustExist: true });
  try {
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{
        name: string;
      }>
    )
      .map((t) => t.name)
      .filter((t) => !/usage|migrations/.test(t));
    return Object.fromEntries(
      tables.map((t) => [t, (db.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n]),
    );
  } finally {
    db.close();
  }
}

let before: Record<string, number>;

beforeAll(async () => {
  database = join(tempDir('cls-e2e-hostile-'), 'reference.db');
  const [reference, mock, docs] = await Promise.all([
    startProcess([referenceCli, 'serve', '--demo', '--json'], { DATABASE: database }, '/health'),
    startProcess([mockCli, '--quiet'], {}, '/v3/'),
    startProcess([docsCli], {}, '/'),
  ]);
  servers.set('reference', reference);
  servers.set('mock', mock);
  servers.set('docs', docs);
  const printed = JSON.parse(
    reference.stdout
      .join('')
      .split('\n')
      .find((l) => l.includes('"accounts"'))!,
  ) as {
    accounts: Array<{ api_keys: Array<{ area: string; env: string; api_key: string }> }>;
  };
  const keyOf = (area: string) =>
    printed.accounts[0]!.api_keys.find((k) => k.area === area && k.env === 'test')!.api_key;
  values.set('reference', { wms_key: keyOf('wms'), manager_key: keyOf('manager'), cam_key: keyOf('cam') });
  values.set('mock', { wms_key: 'wms_test_mock', manager_key: 'manager_test_mock', cam_key: 'cam_test_mock' });
  values.set('docs', { wms_key: 'wms_test_mock', manager_key: 'manager_test_mock', cam_key: 'cam_test_mock' });
  before = rowCounts();
});

afterAll(async () => {
  await Promise.all([...servers.values()].map((s) => s.stop()));
});

async function stillServes(name: ServerName): Promise<void> {
  const server = servers.get(name)!;
  const probe = name === 'reference' ? '/health' : name === 'mock' ? '/v3/wms/orders?page=1&size=10' : '/';
  const res = await fetch(`${server.url}${probe}`, { headers: { 'X-API-Key': values.get(name)!.wms_key! } });
  expect(res.status, `${name} still serves ${probe}`).toBe(200);
}

function check(name: ServerName, hostileCase: HostileCase, answer: Awaited<ReturnType<typeof rawRequest>>): void {
  const context = `${name} ${hostileCase.name} (${hostileCase.reason}): HTTP ${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`;
  expect(answer.answered, `${context}: no answer`).toBe(true);
  if (name === 'docs') {
    if (hostileCase.docs !== undefined) expect(answer.status, context).toBe(hostileCase.docs);
    else expect(answer.status >= 400 && answer.status < 500, context).toBe(true);
    return;
  }
  expect(contractStatuses.has(answer.status), `${context}: not a status the contract uses`).toBe(true);
  expect(answer.status, `${context}: a 5xx for bad input`).toBeLessThan(500);
  if (hostileCase.expect) expect(answer.status, context).toBe(hostileCase.expect.status);
  expect(answer.headers['content-type'] ?? '', context).toMatch(/^application\/json/);
  const text = answer.body.toString('utf8');
  expect(text, context).toMatch(/^\s*\{\s*"success"\s*:\s*false/);
  const body = JSON.parse(text) as { error: { code: string; message: string } };
  const entry = catalog.get(body.error.code);
  expect(entry?.status, `${context}: error.code not in the catalogue with this status`).toBe(answer.status);
  if (hostileCase.expect?.code) expect(body.error.code, context).toBe(hostileCase.expect.code);
  expect(body.error.message, `${context}: message is not one line of text`).toMatch(TEXT);
}

describe.each(['reference', 'mock', 'docs'] as const)('the %s server', (name) => {
  const cases = corpus.filter((c) => c.servers.includes(name));

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_, hostileCase) => {
    const server = servers.get(name)!;
    const answer = await rawRequest(server.port, render(hostileCase, values.get(name)!));
    check(name, hostileCase, answer);
    await stillServes(name);
    expect(server.child.exitCode, `${name} exited`).toBeNull();
  });
});

describe('the corpus', () => {
  it('has a reason for every case and reaches every server', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(25);
    for (const name of ['reference', 'mock', 'docs'] as const)
      expect(
        corpus.some((c) => c.servers.includes(name)),
        name,
      ).toBe(true);
  });

  it("left nothing written in the reference server's database", () => {
    expect(rowCounts()).toEqual(before);
  });
});
