// Rate-limit probes, only with --probe-limits: a burst over the gateway's burst allowance from one address, on
// the general scope and on the MCP scope, must get 429 RATE_LIMIT_EXCEEDED without Retry-After or X-RateLimit-*,
// at once rather than after holding the requests back, and must clear soon after. Probes send no credential, so they spend no monthly quota.
import type { GatewayLimit, OperationInfo } from '@cls-api/spec';
import { errorCode, type CaseContext, type CaseDef, type RunEnv } from '../run/case.js';
import { BudgetSkip, sleep, type Exchange } from '../run/http.js';
import { unknownPathValues } from './shared/inputs.js';

export function probeCases(env: RunEnv): CaseDef[] {
  const cases: CaseDef[] = [];
  for (const scope of env.contract.limits.gateway) {
    // The cheapest target in the scope and in no narrower one: a GET that needs a credential (we send none).
    const target = env.contract.operations.find(
      (op) =>
        op.method === 'get' && op.security.length > 0 && env.contract.gatewayScopes(op.path)[0]?.name === scope.name,
    );
    if (!target) continue;
    cases.push({
      id: `probes/${scope.name}_burst`,
      phase: 'probes',
      title: `A burst over ${scope.burst} requests on ${scope.appliesTo} gets gateway 429s that clear`,
      operations: [target.operationId],
      writes: false,
      run: (t) => burst(t, scope, target),
    });
  }
  return cases;
}

async function burst(t: CaseContext, scope: GatewayLimit, op: OperationInfo): Promise<void> {
  const transport = t.env.transport;
  const path = t.fillPath(op, unknownPathValues(t, op));
  // Let the server's bucket refill from the paced traffic before.
  await sleep(Math.ceil((scope.burst / scope.ratePerSecond) * 1000) + 200);
  let count = scope.burst + 1;
  for (let attempt = 1; attempt <= 4; attempt++) {
    transport.guard({ kind: 'none' });
    // A slow server makes the next burst bigger; a burst the request budget cannot pay for is not started.
    if (count > transport.requestsLeft()) {
      throw new BudgetSkip(
        `a burst of ${count} requests does not fit the request budget (${transport.requestsLeft()} left of --max-requests ${transport.options.maxRequests})`,
      );
    }
    // Taken before the burst: its own answers must not set the bar they are judged by.
    const typical = t.env.observations.typicalMs();
    const started = Date.now();
    const exchanges = await Promise.all(
      Array.from({ length: count }, () => transport.sendRaw({ method: op.method, path, credential: { kind: 'none' } })),
    );
    const elapsed = (Date.now() - started) / 1000;
    const acceptedMs = exchanges.filter((ex) => ex.response.status !== 429).map((ex) => ex.ms);
    t.env.observations.judgeBurst(acceptedMs, () => {
      for (const ex of exchanges) t.inspect(op, ex);
    });
    const limited = exchanges.filter((ex) => ex.response.status === 429);
    if (limited.length > 0) {
      for (const ex of limited) {
        t.assert(
          errorCode(ex.response.json) === 'RATE_LIMIT_EXCEEDED',
          'rate_limit_probe',
          '429 with RATE_LIMIT_EXCEEDED',
          `code ${errorCode(ex.response.json)}`,
          ex,
          op,
        );
        const retryAfter = ex.response.headers[t.contract.quotaHeaders.retryAfter];
        t.assert(
          retryAfter === undefined,
          'rate_limit_probe',
          'no Retry-After on a gateway 429',
          `Retry-After: ${retryAfter}`,
          ex,
          op,
        );
      }
      t.note(`${limited.length} of ${count} requests limited in ${elapsed.toFixed(2)} s`);
      // The allowance itself: from a bucket left to refill, at least the burst is taken before the first 429.
      const taken = exchanges.length - limited.length;
      t.assert(
        attempt > 1 || taken >= scope.burst,
        'rate_limit_probe',
        `at least ${scope.burst} of ${count} requests taken from a full bucket (the burst allowance)`,
        `${taken} taken, ${limited.length} refused with 429`,
        limited[0],
        op,
      );
      await rate(t, scope, op, path);
      await clears(t, op, path);
      return;
    }
    // No 429, but answers held back until the bucket refilled: the gateway throttles instead of refusing at once
    // (the source: a gateway 429 clears quickly and the client backs off; a held request is neither). Throttling
    // holds every request beyond the allowance, each longer than the last; a busy machine holds a few at random. So
    // only a burst most of whose excess was held proves it; fewer slow answers ask for a bigger burst instead.
    const bound = t.env.observations.heldBound(typical);
    const held = exchanges.filter((ex) => ex.ms > bound).sort((a, b) => b.ms - a.ms);
    const excess = count - scope.burst;
    if (held.length >= Math.max(2, Math.ceil(excess / 2))) {
      t.assert(
        false,
        'gateway_429_immediate',
        `requests over the gateway limit refused at once with 429, none held (answers within ${bound} ms; accepted answers took ${typical ?? '?'} ms at the median before the burst)`,
        `no 429 among ${count} requests, and ${held.length} of the ${excess} beyond the burst allowance held (the longest ${held[0]!.ms} ms)`,
        held[0],
        op,
      );
      return;
    }
    // The bucket refills while the burst is on the wire; only a burst beyond what could have refilled proves a
    // missing limit. Otherwise send a bigger one.
    const allowance = scope.burst + scope.ratePerSecond * elapsed;
    if (count > allowance + Math.max(5, scope.burst * 0.2)) {
      t.assert(
        false,
        'rate_limit_probe',
        `a 429 among ${count} requests sent in ${elapsed.toFixed(2)} s (at most ${Math.floor(allowance)} allowed)`,
        'no 429',
        exchanges[exchanges.length - 1],
        op,
      );
      return;
    }
    count = Math.ceil((scope.burst + scope.ratePerSecond * elapsed) * 3 + 10);
    await sleep(Math.ceil((scope.burst / scope.ratePerSecond) * 1000) + 200);
  }
  t.skip(`could not send a burst fast enough to exceed ${scope.burst} + ${scope.ratePerSecond}/s from here`);
}

/**
 * The rate itself: one second after the bucket was emptied, it has refilled at least `ratePerSecond` requests (more,
 * if the machine is slow: time only adds), so that many sent at once are all taken. A slower rate refuses some.
 */
async function rate(t: CaseContext, scope: GatewayLimit, op: OperationInfo, path: string): Promise<void> {
  const transport = t.env.transport;
  const count = Math.floor(scope.ratePerSecond);
  if (count > transport.requestsLeft()) return;
  await sleep(1000);
  transport.guard({ kind: 'none' });
  const exchanges = await Promise.all(
    Array.from({ length: count }, () => transport.sendRaw({ method: op.method, path, credential: { kind: 'none' } })),
  );
  for (const ex of exchanges) t.inspect(op, ex);
  const refused = exchanges.filter((ex) => ex.response.status === 429);
  t.assert(
    refused.length === 0,
    'rate_limit_probe',
    `${count} requests taken one second after the bucket was emptied (the rate of ${scope.ratePerSecond} a second)`,
    `${refused.length} of ${count} refused with 429`,
    refused[0],
    op,
  );
  // Let the bucket refill before the clearing check.
  await sleep(Math.ceil((scope.burst / scope.ratePerSecond) * 1000));
}

/** The limit clears: within a few backoff steps a request is no longer 429. */
async function clears(t: CaseContext, op: OperationInfo, path: string): Promise<void> {
  const transport = t.env.transport;
  let last: Exchange | undefined;
  for (let attempt = 1; attempt <= 6; attempt++) {
    await sleep(transport.backoff(attempt));
    transport.guard({ kind: 'none' });
    last = await transport.sendRaw({ method: op.method, path, credential: { kind: 'none' } });
    t.inspect(op, last);
    if (last.response.status !== 429) {
      t.assert(true, 'rate_limit_probe', '', '');
      return;
    }
  }
  t.assert(
    false,
    'rate_limit_probe',
    'the gateway limit to clear after backing off',
    `still 429 after ${6} waits`,
    last,
    op,
  );
}
