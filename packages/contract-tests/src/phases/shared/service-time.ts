// Times the service shows are in service time (`info.x-service-time-zone`; the DateTime schema is a wall-clock
// `YYYY-MM-DD HH:MM:SS` with no offset, so the zone shows only in what the clock reads). A time the service stamps
// on what the kit has just created must read the kit's own clock in that zone; a server writing UTC or its host's
// zone is hours off.
import type { OperationInfo } from '@cls-api/spec';
import type { CaseContext } from '../../run/case.js';
import type { Exchange } from '../../run/http.js';

/** Clocks of the kit and the service may differ this much (the same allowance as the quota's Reset). */
export const CLOCK_SKEW_SECONDS = 300;

/**
 * Holds every `YYYY-MM-DD HH:MM:SS` member of each record (a created product, the successful result rows of one
 * response, a new order in a list) that the kit did not send itself (`sent`: free text may look like a time) to the
 * kit's clock in service time. Evaluated once per response that has such a member.
 */
export function checkServiceTimes(
  t: CaseContext,
  records: Array<{ record: Record<string, unknown> | undefined; where: string; sent?: Record<string, unknown> }>,
  exchange: Exchange | undefined,
  op: OperationInfo,
  /** When the records were answered, if earlier in the run than now (ms, the run's clock). */
  answeredAt: number = t.env.now(),
): void {
  const time = t.contract.time;
  const now = Math.floor(answeredAt / 1000);
  const stamps = records.flatMap(({ record, where, sent = {} }) =>
    Object.entries(record && typeof record === 'object' ? record : {}).flatMap(([name, value]) => {
      if (typeof value !== 'string' || name in sent) return [];
      const at = time.parseDateTime(value);
      return at === undefined ? [] : [{ name: `${where} ${name}`, value, at }];
    }),
  );
  if (stamps.length === 0) return;
  const off = stamps.filter((s) => Math.abs(s.at - now) > CLOCK_SKEW_SECONDS);
  const names = [...new Set(stamps.map((s) => s.name.split(' ').pop()))];
  t.assert(
    off.length === 0,
    'service_time',
    `${names.join(', ')} of ${records.length === 1 ? records[0]!.where : `${records.length} records`} about ${time.format(now)} (now in ${time.timeZone}, ±${CLOCK_SKEW_SECONDS / 60} min)`,
    off
      .slice(0, 3)
      .map((s) => `${s.name} ${JSON.stringify(s.value)} (${((s.at - now) / 3600).toFixed(1)} h off)`)
      .join('; '),
    exchange,
    op,
  );
}
