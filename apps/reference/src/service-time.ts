// Calendar arithmetic in the service time zone (info.x-service-time-zone, overridable by SERVICE_TIME_ZONE).

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export interface ZonedParts {
  year: number;
  /** 1 to 12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/**
 * Wall-clock readings already computed, per zone, by Unix second. `formatToParts` costs microseconds and a server
 * formats the same few instants over and over (the request time within a second, the times of the orders a list
 * shows), so that is worth remembering. The readings are frozen: callers share them.
 */
const readings = new Map<string, Map<number, Readonly<ZonedParts>>>();
const READINGS_PER_ZONE = 10_000;

export function zonedParts(instant: Date, timeZone: string): ZonedParts {
  const ms = instant.getTime();
  // Intl shows whole seconds, rounded down (also before 1970), so every instant within a second reads the same.
  const second = Math.floor(ms / 1000);
  let zone = readings.get(timeZone);
  const known = zone?.get(second);
  if (known) return known;
  const parts = computeZonedParts(instant, timeZone);
  if (Number.isFinite(ms)) {
    if (!zone) readings.set(timeZone, (zone = new Map()));
    // A bounded memory: when full, start over (the instants a server keeps formatting come back quickly).
    if (zone.size >= READINGS_PER_ZONE) zone.clear();
    zone.set(second, Object.freeze(parts));
  }
  return parts;
}

function computeZonedParts(instant: Date, timeZone: string): ZonedParts {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(instant)) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!,
  };
}

/** Milliseconds the zone is ahead of UTC at `instant`. */
function offsetAt(instant: number, timeZone: string): number {
  const p = zonedParts(new Date(instant), timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The instant at which the wall clock of `timeZone` reads the given local time. */
export function zonedTimeToInstant(year: number, month: number, day: number, timeZone: string, hour = 0): Date {
  const wall = Date.UTC(year, month - 1, day, hour);
  let guess = wall - offsetAt(wall, timeZone);
  // A second pass settles a guess that fell on the other side of a daylight-saving change.
  guess = wall - offsetAt(guess, timeZone);
  return new Date(guess);
}

/** The quota month of `instant`, `YYYY-MM` in the service time zone. */
export function monthKey(instant: Date, timeZone: string): string {
  const { year, month } = zonedParts(instant, timeZone);
  return `${year}-${String(month).padStart(2, '0')}`;
}

/** 00:00 on the 1st of the month after `instant`'s, in the service time zone. */
export function startOfNextMonth(instant: Date, timeZone: string): Date {
  const { year, month } = zonedParts(instant, timeZone);
  return month === 12 ? zonedTimeToInstant(year + 1, 1, 1, timeZone) : zonedTimeToInstant(year, month + 1, 1, timeZone);
}
