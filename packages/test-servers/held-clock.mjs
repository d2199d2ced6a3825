// Loaded with `--import` (through NODE_OPTIONS, see src/held-clock.ts) into a server under test: a clock the test
// can hold still or step in processes of their own, so that what a count depends on is not how fast the machine
// serves a burst.
// On SIGUSR2 the instance reads the file named by CLS_HELD_CLOCK_FILE, `{"held": <ms or null>, "change": "<id>"}`:
// an instant holds its clock there (`new Date()` and `Date.now()` return it), null lets it run again. Each change is
// acknowledged on stderr with its id, so the test knows when every instance has taken it.
import { readFileSync } from 'node:fs';

const file = process.env.CLS_HELD_CLOCK_FILE;
if (!file) throw new Error('held-clock.mjs: CLS_HELD_CLOCK_FILE is not set');

const SystemDate = Date;
/** The instant the clock is held at, or undefined while it runs. */
let held;

// A proxy rather than a subclass: `Date()` called without `new`, `instanceof Date` and every static stay the system's.
globalThis.Date = new Proxy(SystemDate, {
  construct(target, args, newTarget) {
    return Reflect.construct(target, args.length === 0 && held !== undefined ? [held] : args, newTarget);
  },
  get(target, property, receiver) {
    if (property === 'now') return () => held ?? SystemDate.now();
    return Reflect.get(target, property, receiver);
  },
});

process.on('SIGUSR2', () => {
  const change = JSON.parse(readFileSync(file, 'utf8'));
  if (change.held !== null && !Number.isFinite(change.held))
    throw new Error(`held-clock.mjs: not an instant: ${change.held}`);
  held = change.held ?? undefined;
  process.stderr.write(`[held-clock] ${change.change} taken by pid ${process.pid}\n`);
});
