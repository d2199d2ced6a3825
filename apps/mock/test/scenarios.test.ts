// Every named response example of every operation, asked for over HTTP, and checked against its schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, type OperationInfo } from '@cls-api/spec';
import { Contract, exampleRequest, startMock, type MockServer, type Scenario } from '../src/index.js';
import { schemaValidator, send, type Answer } from './support.js';

const doc = loadSpec();
const contract = new Contract(doc);
const validator = schemaValidator(doc);
const scenarios = contract.scenarios();
const opOf = (s: Scenario) => contract.operations.find((op) => op.operationId === s.operationId)!;

let mock: MockServer;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(async () => {
  await mock?.close();
});

function ask(op: OperationInfo, prefer?: string): Promise<Answer> {
  const req = exampleRequest(doc, op);
  return send(mock.url, req.method, req.url, { ...req.headers, ...(prefer ? { Prefer: prefer } : {}) }, req.body);
}

/** Optional headers the answer carries although the example does not declare them: placeholders. */
function madeUpHeaders(op: OperationInfo, status: string, answer: Answer, declared: Record<string, string>): string[] {
  const headers = op.responses[status]?.headers ?? {};
  return Object.keys(headers).filter((name) => answer.headers.has(name) && !(name in declared));
}

describe('the scenarios the contract names', () => {
  it('covers every operation, and no operation uses one name twice', () => {
    expect(new Set(scenarios.map((s) => s.operationId))).toEqual(
      new Set(contract.operations.map((o) => o.operationId)),
    );
    for (const op of contract.operations) {
      const names = contract.scenariosOf(op).map((s) => s.example);
      expect(names, op.operationId).toEqual([...new Set(names)]);
    }
  });
});

describe('Prefer: example=<name> serves that example with its documented status', () => {
  it.each(scenarios.map((s) => [`${s.operationId} ${s.status} ${s.example}`, s] as const))('%s', async (_, s) => {
    const op = opOf(s);
    const answer = await ask(op, `example=${s.example}`);
    expect(answer.status).toBe(Number(s.status));
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual(s.value);
    expect(validator.errors(op.responses[s.status]!.schema, answer.body)).toEqual([]);
    for (const [name, value] of Object.entries(s.headers)) expect(answer.headers.get(name)).toBe(value);
    expect(madeUpHeaders(op, s.status, answer, s.headers)).toEqual([]);
  });
});

describe('Prefer: code=<status>, example=<name> serves the same', () => {
  it.each(contract.operations.map((op) => [op.operationId, op] as const))('%s', async (_, op) => {
    for (const s of contract.scenariosOf(op)) {
      const answer = await ask(op, `code=${s.status}, example=${s.example}`);
      expect(answer.status, s.example).toBe(Number(s.status));
      expect(answer.body, s.example).toEqual(s.value);
    }
  });
});

describe('without Prefer, and with Prefer: code= alone', () => {
  it.each(contract.operations.map((op) => [op.operationId, op] as const))('%s', async (_, op) => {
    const success = Object.keys(op.responses)
      .filter((s) => /^2\d\d$/.test(s))
      .sort()[0]!;
    const plain = await ask(op);
    expect(plain.status).toBe(Number(success));
    expect(plain.body).toEqual(Object.values(op.responses[success]!.examples)[0]!.value);
    expect(validator.errors(op.responses[success]!.schema, plain.body)).toEqual([]);
    expect(madeUpHeaders(op, success, plain, {})).toEqual([]);

    for (const [status, response] of Object.entries(op.responses)) {
      const answer = await ask(op, `code=${status}`);
      expect(answer.status, status).toBe(Number(status));
      expect(answer.body, status).toEqual(Object.values(response.examples)[0]!.value);
    }
  });
});

describe('the two 429s are told apart by Retry-After (source: Limits, rules 4 to 6)', () => {
  const limits = doc.info['x-limits'] as { monthly_quota: { test: { calls_per_month: number } } };

  it('gateway speed limit: no Retry-After and no X-RateLimit-* on any operation', async () => {
    const wrong: string[] = [];
    for (const s of scenarios.filter((x) => x.example === 'gateway_speed_limit')) {
      const answer = await ask(opOf(s), 'example=gateway_speed_limit');
      const sent = [...answer.headers.keys()].filter((h) => /^(retry-after|x-ratelimit-)/i.test(h));
      if (answer.status !== 429 || sent.length > 0) wrong.push(`${s.operationId}: ${answer.status} ${sent.join(', ')}`);
    }
    expect(wrong).toEqual([]);
  });

  it('monthly quota: Retry-After, X-RateLimit-Limit (the test quota), X-RateLimit-Remaining 0 and X-RateLimit-Reset on every operation', async () => {
    const wrong: string[] = [];
    const quota = scenarios.filter((x) => x.example === 'monthly_quota_exhausted');
    expect(quota.length).toBeGreaterThan(0);
    for (const s of quota) {
      const answer = await ask(opOf(s), 'example=monthly_quota_exhausted');
      const h = (name: string) => answer.headers.get(name);
      const ok =
        answer.status === 429 &&
        /^\d+$/.test(h('retry-after') ?? '') &&
        h('x-ratelimit-limit') === String(limits.monthly_quota.test.calls_per_month) &&
        h('x-ratelimit-remaining') === '0' &&
        /^\d+$/.test(h('x-ratelimit-reset') ?? '');
      if (!ok) {
        const sent = ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map(
          (n) => `${n}=${h(n)}`,
        );
        wrong.push(`${s.operationId}: ${answer.status} ${sent.join(' ')}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
