import { parseArgs } from 'node:util';

export const SCENARIOS = [
  'get',
  'scale',
  'draft',
  'bodies',
  'client',
  'bundle',
  'profile',
  'pipeline',
  'kit',
  'silent',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export const SCENARIO_TITLES: Record<ScenarioName, string> = {
  get: 'GET /v3/manager/orders: reference vs bare Fastify vs Prism mock',
  scale: 'Scale-out: the same GET on SQLite and PostgreSQL, hot path on and off, through nginx to 1 and 2 instances',
  draft: 'POST /v3/wms/orders/draft with a full batch of rows',
  bodies: "One client's largest draft bodies beside other clients' GETs: their p99 with and without it",
  client: '@cls-api/client vs a bare fetch',
  bundle: '@cls-api/client in a browser bundle: minified and gzipped, with its dependencies',
  profile: 'CPU profile of the reference server under the GET load',
  pipeline: 'Pipeline: cold and unchanged `pnpm build` in a temporary clone',
  kit: 'Contract-test kit: a full run and a --profile pr run against a fresh reference server',
  silent: 'New connections while many connections that have sent nothing are held open',
};

/** Every loop is bounded: a fixed duration or a fixed count, and each child process has a time limit. */
export interface Settings {
  get: { warmupSec: number; rounds: number; roundSec: number; connections: number };
  /** The GET load of `get` on more targets; the same settings as `get`, so that the two runs compare. */
  scale: { warmupSec: number; rounds: number; roundSec: number; connections: number };
  draft: { warmupRequests: number; rounds: number; requestsPerRound: number };
  bodies: { rounds: number; roundSec: number; largeConcurrency: number; others: number; otherIntervalMs: number };
  client: { warmupCalls: number; rounds: number; callsPerRound: number };
  profile: { durationSec: number; top: number };
  pipeline: { warmRuns: number; installTimeoutSec: number; buildTimeoutSec: number };
  silent: { rounds: number; held: number; callsPerRound: number };
}

export const FULL: Settings = {
  get: { warmupSec: 3, rounds: 5, roundSec: 5, connections: 10 },
  scale: { warmupSec: 3, rounds: 5, roundSec: 5, connections: 10 },
  draft: { warmupRequests: 5, rounds: 5, requestsPerRound: 10 },
  bodies: { rounds: 3, roundSec: 10, largeConcurrency: 8, others: 4, otherIntervalMs: 50 },
  client: { warmupCalls: 500, rounds: 10, callsPerRound: 300 },
  profile: { durationSec: 8, top: 15 },
  pipeline: { warmRuns: 3, installTimeoutSec: 900, buildTimeoutSec: 1800 },
  silent: { rounds: 5, held: 8000, callsPerRound: 2000 },
};

export const QUICK: Settings = {
  get: { warmupSec: 1, rounds: 2, roundSec: 2, connections: 10 },
  scale: { warmupSec: 1, rounds: 2, roundSec: 2, connections: 10 },
  draft: { warmupRequests: 2, rounds: 2, requestsPerRound: 3 },
  bodies: { rounds: 1, roundSec: 5, largeConcurrency: 8, others: 4, otherIntervalMs: 50 },
  client: { warmupCalls: 50, rounds: 2, callsPerRound: 100 },
  profile: { durationSec: 3, top: 10 },
  pipeline: { warmRuns: 1, installTimeoutSec: 900, buildTimeoutSec: 1800 },
  silent: { rounds: 1, held: 1000, callsPerRound: 200 },
};

export interface BenchOptions {
  quick: boolean;
  only: ScenarioName[];
  settings: Settings;
  /** Where the Markdown report goes; default BENCHMARKS.md at the repository root. */
  out: string | undefined;
  /** Also write the results as JSON here. */
  json: string | undefined;
}

export const USAGE = `Usage: pnpm bench [--quick] [--only <scenario>[,<scenario>…]] [--rounds N] [--seconds S] [--out FILE] [--json FILE]

  --quick       fewer and shorter rounds: a smoke run, not numbers to quote
  --only        run only these scenarios: ${SCENARIOS.join(', ')} (repeatable or comma-separated)
  --rounds N    rounds per scenario (overrides the preset)
  --seconds S   length of one GET load round (get, scale) and of the profile, in seconds (overrides the preset)
  --out FILE    where to write the report (default: BENCHMARKS.md at the repository root)
  --json FILE   also write the results as JSON
  -h, --help    show this help`;

export class UsageError extends Error {}

function positive(name: string, value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be a positive ${integer ? 'integer' : 'number'}, got "${value}"`);
  }
  return n;
}

/** The command line parsed by node:util; its own errors become usage errors. */
function parseArgv(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        quick: { type: 'boolean' },
        only: { type: 'string', multiple: true },
        rounds: { type: 'string' },
        seconds: { type: 'string' },
        out: { type: 'string' },
        json: { type: 'string' },
      },
      allowPositionals: false,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function parseOptions(argv: string[]): BenchOptions {
  const parsed = parseArgv(argv);
  const { values } = parsed;
  const only: ScenarioName[] = [];
  for (const name of (values.only ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean)) {
    if (!(SCENARIOS as readonly string[]).includes(name))
      throw new UsageError(`unknown scenario "${name}"; the scenarios are ${SCENARIOS.join(', ')}`);
    if (!only.includes(name as ScenarioName)) only.push(name as ScenarioName);
  }
  const quick = values.quick === true;
  const settings: Settings = structuredClone(quick ? QUICK : FULL);
  const rounds = positive('rounds', values.rounds, true);
  if (rounds !== undefined) {
    settings.get.rounds = rounds;
    settings.scale.rounds = rounds;
    settings.draft.rounds = rounds;
    settings.bodies.rounds = rounds;
    settings.client.rounds = rounds;
    settings.silent.rounds = rounds;
  }
  const seconds = positive('seconds', values.seconds, false);
  if (seconds !== undefined) {
    settings.get.roundSec = seconds;
    settings.get.warmupSec = Math.min(settings.get.warmupSec, seconds);
    settings.scale.roundSec = seconds;
    settings.scale.warmupSec = Math.min(settings.scale.warmupSec, seconds);
    settings.profile.durationSec = seconds;
    settings.bodies.roundSec = seconds;
  }
  return {
    quick,
    only: only.length ? only : [...SCENARIOS],
    settings,
    out: values.out,
    json: values.json,
  };
}
