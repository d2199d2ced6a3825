// Times are stored as Unix epoch seconds (zone-free) and shown as `YYYY-MM-DD HH:MM:SS` in the service time zone.
// Every conversion goes through Intl with the configured zone, so the machine's own zone never leaks in.

import { type ZonedParts, zonedParts } from '../service-time.js';

/** Unix epoch seconds. Sub-second precision is dropped so a stored time equals the time the API shows. */
export type EpochSeconds = number;

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

type LocalParts = ZonedParts;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Wall-clock arithmetic in one IANA time zone. */
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

  private local(at: EpochSeconds): LocalParts {
    return zonedParts(new Date(at * 1000), this.timeZone);
  }

  /** `YYYY-MM-DD HH:MM:SS` in the service time zone. */
  format(at: EpochSeconds): string {
    const p = this.local(at);
    return `${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
  }

  /** `YYYY-MM-DD`: the service-time calendar date of an instant. */
  dateOf(at: EpochSeconds): string {
    const p = this.local(at);
    return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
  }

  /** `YYYYMMDD`, for service-assigned numbers such as `ORD-20261120-0001`. */
  compactDateOf(at: EpochSeconds): string {
    return this.dateOf(at).replaceAll('-', '');
  }

  /** The instant at which the service-time wall clock shows the given fields (the earlier one, across a DST change). */
  private instantOf(p: LocalParts): EpochSeconds {
    const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) / 1000;
    const offsetAt = (at: EpochSeconds): number => {
      const q = this.local(at);
      return Date.UTC(q.year, q.month - 1, q.day, q.hour, q.minute, q.second) / 1000 - at;
    };
    const first = wall - offsetAt(wall);
    const candidates = [first, wall - offsetAt(first)];
    const exact = candidates.filter((at) => at + offsetAt(at) === wall);
    // In a skipped hour (spring forward) no instant shows the wall time; the earlier offset's reading is used.
    return exact.length > 0 ? Math.min(...exact) : first;
  }

  /**
   * Parses a service-time `YYYY-MM-DD HH:MM:SS`. Returns undefined for a string that matches the pattern but is no
   * real time (`2026-02-31 10:00:00`): the contract's pattern cannot rule those out.
   */
  parseDateTime(text: string): EpochSeconds | undefined {
    const m = DATE_TIME.exec(text);
    if (!m) return undefined;
    const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
    if (!isRealDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
    return this.instantOf({ year, month, day, hour, minute, second });
  }

  /** Start (00:00:00 service time) of a `YYYY-MM-DD` date; undefined for a date that does not exist. */
  startOfDate(text: string): EpochSeconds | undefined {
    const m = DATE.exec(text);
    if (!m) return undefined;
    const [year, month, day] = m.slice(1).map(Number) as [number, number, number];
    if (!isRealDate(year, month, day)) return undefined;
    return this.instantOf({ year, month, day, hour: 0, minute: 0, second: 0 });
  }

  /** The instant of `hh:mm:ss` service time on the service-time day of `at`. */
  atTimeOnDayOf(at: EpochSeconds, hour: number, minute = 0, second = 0): EpochSeconds {
    const p = this.local(at);
    return this.instantOf({ year: p.year, month: p.month, day: p.day, hour, minute, second });
  }

  /** `YYYY-MM-DD` shifted by whole calendar days. */
  static addDays(date: string, days: number): string {
    const m = DATE.exec(date);
    if (!m) throw new Error(`not a date: ${date}`);
    const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + days));
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  }
}

function isRealDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}
