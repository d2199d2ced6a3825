// Times are stored as Unix epoch seconds (zone-free) and shown as `YYYY-MM-DD HH:MM:SS` in the service time zone.
// The calendar arithmetic itself lives in one place, `src/service-time.ts`; the domain uses it from here.

export { type EpochSeconds, ServiceTime, type TimeOfDay } from '../service-time.js';
