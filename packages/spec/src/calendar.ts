// Calendar arithmetic in the service time zone (`info.x-service-time-zone`): the one place of the repository that
// turns instants into wall-clock readings and back. The quota month and its reset, every shown
// `YYYY-MM-DD HH:MM:SS`, the date filters and the return window all go through it, so a machine's own zone never
// leaks in and a time a tool shows is always a reading of a real instant (spec/DECISIONS.md G2, G13, G16).

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      // Years before 1 read as BC: the era tells year 0 (1 BC) from year 1.
      era: 'short',
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
    if (!zone) {
      zone = new Map();
      readings.set(timeZone, zone);
    }
    // A bounded memory: when full, start over (the instants a server keeps formatting come back quickly).
    if (zone.size >= READINGS_PER_ZONE) zone.clear();
    zone.set(second, Object.freeze(parts));
  }
  return parts;
}

function computeZonedParts(instant: Date, timeZone: string): ZonedParts {
  const parts: Record<string, number> = {};
  let beforeCommonEra = false;
  for (const p of formatter(timeZone).formatToParts(instant)) {
    if (p.type === 'era') beforeCommonEra = p.value === 'BC';
    else if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return {
    // The proleptic Gregorian year the contract's dates count in: 1 BC is year 0.
    year: beforeCommonEra ? 1 - parts.year! : parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!,
  };
}

/** Unix epoch seconds. Sub-second precision is dropped so a stored time equals the time the API shows. */
export type EpochSeconds = number;

/**
 * Milliseconds of a UTC reading, fields out of range rolled over as `Date.UTC` rolls them. Not `Date.UTC` itself:
 * it reads the years 0 to 99 as 1900 to 1999, and the contract's dates are `0000` to `9999` (spec/DECISIONS.md G16).
 */
function utcMillis(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime();
}

/** The wall-clock fields read as if they were UTC: a zone-free number to compare and shift readings with. */
const wallSeconds = (p: ZonedParts): number => utcMillis(p.year, p.month, p.day, p.hour, p.minute, p.second) / 1000;

/**
 * The instant at which the wall clock of `timeZone` shows `p`: the earlier one when it shows it twice (a
 * daylight-saving change back), and the reading of the earlier offset when it never shows it (spring forward).
 * Fields out of range roll over (day 32 of January is 1 February).
 */
export function instantOfWallTime(p: ZonedParts, timeZone: string): EpochSeconds {
  const wall = wallSeconds(p);
  const offsetAt = (at: EpochSeconds): number => wallSeconds(zonedParts(new Date(at * 1000), timeZone)) - at;
  const first = wall - offsetAt(wall);
  // A second pass settles a guess that fell on the other side of a daylight-saving change.
  const candidates = [first, wall - offsetAt(first)];
  const exact = candidates.filter((at) => at + offsetAt(at) === wall);
  return exact.length > 0 ? Math.min(...exact) : first;
}

/** The instant at which the wall clock of `timeZone` reads the given local time. */
export function zonedTimeToInstant(year: number, month: number, day: number, timeZone: string, hour = 0): Date {
  return new Date(instantOfWallTime({ year, month, day, hour, minute: 0, second: 0 }, timeZone) * 1000);
}

/** The quota month of `instant`, `YYYY-MM` in the service time zone. */
export function monthKey(instant: Date, timeZone: string): string {
  const { year, month } = zonedParts(instant, timeZone);
  return `${year}-${String(month).padStart(2, '0')}`;
}

/** 00:00 on the 1st of the month after `instant`'s, in the service time zone: the monthly quota's reset. */
export function startOfNextMonth(instant: Date, timeZone: string): Date {
  const { year, month } = zonedParts(instant, timeZone);
  return zonedTimeToInstant(year, month + 1, 1, timeZone);
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function isRealDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(utcMillis(year, month + 1, 0)).getUTCDate();
}

/** A time of day, `HH:MM` (`info.x-limits.return_withdrawal_deadline`). */
export interface TimeOfDay {
  hour: number;
  minute: number;
}

/** Parses `HH:MM` (00:00 to 23:59); undefined for anything else. */
export function parseTimeOfDay(text: string): TimeOfDay | undefined {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  return m ? { hour: Number(m[1]), minute: Number(m[2]) } : undefined;
}

/** Wall-clock arithmetic in one IANA time zone, on epoch seconds. */
export class ServiceTime {
  constructor(readonly timeZone: string) {
    try {
      zonedParts(new Date(0), timeZone);
    } catch {
      throw new Error(`unknown time zone "${timeZone}": use an IANA name such as Asia/Seoul`);
    }
  }

  /** A `Date` truncated to whole seconds. */
  static seconds(date: Date): EpochSeconds {
    return Math.floor(date.getTime() / 1000);
  }

  private local(at: EpochSeconds): ZonedParts {
    return zonedParts(new Date(at * 1000), this.timeZone);
  }

  /** Texts `format` already wrote, by second: every read of a list formats the same instants again. */
  private readonly formatted = new Map<EpochSeconds, string>();

  /** `YYYY-MM-DD HH:MM:SS` in the service time zone: the reading of a real instant, so always a real time. */
  format(at: EpochSeconds): string {
    let text = this.formatted.get(at);
    if (text === undefined) {
      const p = this.local(at);
      text = `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
      if (this.formatted.size >= READINGS_PER_ZONE) this.formatted.clear();
      this.formatted.set(at, text);
    }
    return text;
  }

  /** `YYYY-MM-DD`: the service-time calendar date of an instant. */
  dateOf(at: EpochSeconds): string {
    const p = this.local(at);
    return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
  }

  /** `YYYYMMDD`, for service-assigned numbers such as `ORD-20261120-0001`. */
  compactDateOf(at: EpochSeconds): string {
    return this.dateOf(at).replaceAll('-', '');
  }

  /** The quota month of an instant, `YYYY-MM`. */
  monthOf(at: EpochSeconds): string {
    return monthKey(new Date(at * 1000), this.timeZone);
  }

  /** 00:00:00 on the 1st of the month after `at`'s: when the monthly quota resets (`X-RateLimit-Reset`). */
  startOfNextMonth(at: EpochSeconds): EpochSeconds {
    return ServiceTime.seconds(startOfNextMonth(new Date(at * 1000), this.timeZone));
  }

  /**
   * Parses a service-time `YYYY-MM-DD HH:MM:SS`; undefined for a string that is no real time (`2026-02-29
   * 10:00:00`). The contract's pattern refuses those at the door (DECISIONS G16); this keeps a caller safe that
   * is reached without the door.
   */
  parseDateTime(text: string): EpochSeconds | undefined {
    const m = DATE_TIME.exec(text);
    if (!m) return undefined;
    const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    if (!isRealDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
    return instantOfWallTime({ year, month, day, hour, minute, second }, this.timeZone);
  }

  /** Start (00:00:00 service time) of a `YYYY-MM-DD` date; undefined for a date that does not exist. */
  startOfDate(text: string): EpochSeconds | undefined {
    const m = DATE.exec(text);
    if (!m) return undefined;
    const [year, month, day] = m.slice(1).map(Number) as [number, number, number];
    if (!isRealDate(year, month, day)) return undefined;
    return instantOfWallTime({ year, month, day, hour: 0, minute: 0, second: 0 }, this.timeZone);
  }

  /** The instant of `hh:mm:ss` service time on the service-time day of `at`, shifted by `days` whole days. */
  atTimeOnDayOf(at: EpochSeconds, hour: number, minute = 0, second = 0, days = 0): EpochSeconds {
    const p = this.local(at);
    return instantOfWallTime({ year: p.year, month: p.month, day: p.day + days, hour, minute, second }, this.timeZone);
  }

  /**
   * The first instant strictly after `at` at which the service-time clock reads `time` (seconds :00): that day's
   * when `at` is earlier in the day, else the next day's. The return window ends there (DECISIONS G13): registered
   * at 17:59:59, 18:00:00 the same day; registered at 18:00:00 or 19:00, 18:00:00 the next day.
   */
  nextTimeOfDay(at: EpochSeconds, time: TimeOfDay): EpochSeconds {
    const sameDay = this.atTimeOnDayOf(at, time.hour, time.minute);
    return sameDay > at ? sameDay : this.atTimeOnDayOf(at, time.hour, time.minute, 0, 1);
  }

  /** `YYYY-MM-DD` shifted by whole calendar days. */
  static addDays(date: string, days: number): string {
    const m = DATE.exec(date);
    if (!m) throw new Error(`not a date: ${date}`);
    const d = new Date(utcMillis(Number(m[1]), Number(m[2]), Number(m[3]) + days));
    return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  }
}
