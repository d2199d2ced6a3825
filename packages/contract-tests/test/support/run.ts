// Runs the kit against a fake server with settings for tests: no pacing (the fake has no gateway limit unless a
// test turns it on), short backoff, a fixed seed, and the fake's keys and client credentials.
import { runContractTests, type Report, type RunOptions } from '../../src/index.js';
import type { FakeServer } from './fake-server.js';

export const SEED = 20261122;

export function kitOptions(fake: FakeServer, overrides: Partial<RunOptions> = {}): RunOptions {
  return {
    baseUrl: fake.url,
    apiKeys: Object.values(fake.keys.primary),
    otherApiKeys: Object.values(fake.keys.other),
    clientId: fake.client.id,
    clientSecret: fake.client.secret,
    expiredToken: fake.expiredToken,
    seed: SEED,
    paceFraction: 0,
    backoffBaseMs: 10,
    backoffMaxMs: 200,
    quotaReserve: 0,
    ...overrides,
  };
}

export function runKit(fake: FakeServer, overrides: Partial<RunOptions> = {}): Promise<Report> {
  return runContractTests(kitOptions(fake, overrides));
}

/** Every failure as `check · case · expected / seen`, for assertion messages. */
export function describeFailures(report: Report): string {
  return report.cases
    .flatMap((c) => c.failures.map((f) => `${f.check} · ${c.id} · expected ${f.expected} / seen ${f.seen}`))
    .join('\n');
}

export function failedChecks(report: Report): Set<string> {
  return new Set(report.cases.flatMap((c) => c.failures.map((f) => f.check)));
}

/** Every provisional departure as `check · case · expected / seen`, for assertion messages. */
export function describeDepartures(report: Report): string {
  return report.departures.map((d) => `${d.check} · ${d.case} · expected ${d.expected} / seen ${d.seen}`).join('\n');
}
