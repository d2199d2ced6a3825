// Times the service shows are in service time (`info.x-service-time-zone`; the DateTime schema is a wall-clock
// `YYYY-MM-DD HH:MM:SS` with no offset, so the zone shows only in what the clock reads). A time the service stamps
// on what the kit has just created must read the kit's own clock in that zone; a server writing UTC or its host's
// zone is hours off.
import type { OperationInfo } from '@cls-api/spec';
import type { CaseContext } from './case.js';
import type { Exchange } from './http.js';

/** Clocks of the kit and the service may differ this much (the same allowance as the quota's Reset). */
export const CLOCK_SKEW_SECONDS = 300;

/**
 * Holds every `YYYY-MM-DD HH:MM:SS` member of `record` (a created product, a successful result row, a new order in a
 * list) that the kit did not send itself (`sent`: free text may look like a time) to the kit's clock in service
 * time. Evaluated once per record that has such a member.
 */
export function checkServiceTimes(
  t: CaseContext,
  record: Record<string, unknown> | undefined,
  where: string,
  exchange: Exchange | undefined,
  op: OperationInfo,
  sent: Record<string, unknown> = {},
): void {
  if (!record || typeof record !== 'object') return;
  const time = t.contract.time;
  const now = Math.floor(t.env.now() / 1000);
  const stamps = Object.entries(record).flatMap(([name, value]) => {
    if (typeof value !== 'string' || name in sent) return [];
    const at = time.parseDateTime(value);
    return at === undefined ? [] : [{ name, value, at }];
  });
  if (stamps.length === 0) return;
  const off = stamps.filter((s) => Math.abs(s.at - now) > CLOCK_SKEW_SECONDS);
  t.assert(
    off.length === 0,
    'service_time',
    `${where}: ${stamps.map((s) => s.name).join(', ')} about ${time.format(now)} (now in ${time.timeZone}, ±${CLOCK_SKEW_SECONDS / 60} min)`,
    off.map((s) => `${s.name} ${JSON.stringify(s.value)} (${((s.at - now) / 3600).toFixed(1)} h off)`).join('; '),
    exchange,
    op,
  );
}
