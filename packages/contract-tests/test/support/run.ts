// Runs the kit against a test's server with settings for tests: no pacing (the server has no gateway limit unless a
// test turns it on), short backoff, a fixed seed, and the sellers' keys and client credentials.
import { runContractTests, type Report, type RunOptions } from '../../src/index.js';

/** What the kit is given of a server: its address and its sellers' credentials. */
export interface KitTarget {
  url: string;
  keys: { primary: Record<string, string>; other: Record<string, string> };
  client: { id: string; secret: string };
  expiredToken: string;
}

export const SEED = 20261122;

export function kitOptions(server: KitTarget, overrides: Partial<RunOptions> = {}): RunOptions {
  return {
    baseUrl: server.url,
    apiKeys: Object.values(server.keys.primary),
    otherApiKeys: Object.values(server.keys.other),
    clientId: server.client.id,
    clientSecret: server.client.secret,
    expiredToken: server.expiredToken,
    seed: SEED,
    paceFraction: 0,
    backoffBaseMs: 10,
    backoffMaxMs: 200,
    quotaReserve: 0,
    ...overrides,
  };
}

export function runKit(server: KitTarget, overrides: Partial<RunOptions> = {}): Promise<Report> {
  return runContractTests(kitOptions(server, overrides));
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
