// Command line and environment → RunOptions. Secrets may come from the environment only, so that CI never shows
// them on a command line.
import { parseArgs } from 'node:util';
import { apiKeysFromEnv, splitList } from '@cls-api/spec';
import { PHASES, type Phase } from '../run/case.js';
import { UsageError } from './credentials.js';
import { EXIT_CODES } from '../report/exit-codes.js';
import { PROFILES, type Profile, type RunOptions, TARGETS, type Target } from './run-options.js';
import { PR_ROTATION } from './profile.js';

export const USAGE = `Usage: cls-contract --base-url URL [options]

Proves that a server honours the Commerce and Logistics Service API v3 contract.

Target and credentials (each also read from the environment variable shown):
  --base-url URL            the API's base address, without /v3            CLS_BASE_URL
  --api-key KEY             an API key {area}_{env}_…; repeat per area     CLS_API_KEYS (comma-separated)
                                                                           or CLS_API_KEY_WMS, _MANAGER, _CAM
  --other-api-key KEY       a key of another seller (isolation checks)     CLS_OTHER_API_KEYS
                                                                           or CLS_OTHER_API_KEY_WMS, _MANAGER, …
  --client-id ID            client id for the JWT (POST /v3/auth/token)    CLS_CLIENT_ID
  --client-secret SECRET    client secret for the JWT                      CLS_CLIENT_SECRET
                            another seller's client (optional, isolation): CLS_OTHER_CLIENT_ID
                                                                           and CLS_OTHER_CLIENT_SECRET
                            an access token that has expired (optional):   CLS_EXPIRED_TOKEN
  --save-token FILE         write this run's access token to FILE: the next run's CLS_EXPIRED_TOKEN
  --no-credentials          run without any credential (a smoke run): without it, no credential is exit 2
  --target server|mock      mock: a stateless server (stateful checks not applicable, no quota plan);
                            detected when a created record cannot be read back

What to run:
  --profile full|pr         full (default): every check, the nightly run; pr: at most 15 test-key calls,
                            a seeded share of the metered checks (the seed rotates them: use the run number)
  --read-only               GET requests only (plus the token request); safe for production-like targets
  --allow-live-writes       with a live key (or cli_live_ client): write too (by default a live run is
                            read-only; the writing cases are skipped and listed)
  --examples-only           only the contract's examples; for a mock answering Prefer: code=…, example=…
  --probe-limits            also burst over the gateway rate limits (disruptive)
  --no-sandbox              leave the sandbox's helpers alone on a server that offers them (by default the
                            test clock reaches RETURN_CANCEL_EXPIRED and a reset at the end removes every
                            test record of each seller's account, the run's and any other)
  --tag TAG                 only operations with this tag (repeatable)
  --operation ID            only this operationId (repeatable)
  --phase NAME              only this phase (repeatable): ${PHASES.join(', ')}
  --seed N                  seed of the generated inputs (printed on every run)
  --runs N                  generated inputs per operation and kind (default 1)

Provisional constraints (x-provisional, x-known-values: our designs, not shown by the service's source):
                            a response or outcome that breaks only a design is a provisional departure,
                            listed apart (console, JSON departures, JUnit suite "provisional"); exit code
                            unaffected
  --strict-provisional      count provisional departures as failures (exit 1)

Being a good citizen:
  --max-requests N          send at most N requests in all (retries, probes, base-URL check included); the cases
                            left out are skipped with the reason, not failed
  --ledger FILE             a ledger kept across runs (a CI cache): when each (operation, rule) pair was last
                            proven; a pr run takes the slot that ran longest ago, and the summary names pairs
                            not proven within the last ${PR_ROTATION} runs
  --max-quota N             spend at most N calls of each seller's test-key monthly quota (retries included);
                            cases that do not fit are skipped with the reason; the summary shows the quota the
                            service counted (X-RateLimit-Remaining before and after) next to the kit's count
  --quota-reserve N         stop before a test key's X-RateLimit-Remaining reaches N (default 50)
  --preflight               run no case: read each seller's test-key quota left (one call of it each) and
                            say whether this run (the same options) fits above the reserve; exit 0 if it
                            does, 3 if it does not

Reports:
  --junit FILE              write JUnit XML
  --json FILE               write the full report as JSON
  --summary FILE            write a Markdown summary (verdict, failures, coverage matrix): for a CI job summary
  --coverage                print the coverage matrix: every (operation, rule) pair and what the run did with it
  --quiet                   no progress lines, only the summary
  -h, --help                this text

Exit codes:
${EXIT_CODES.map((e) => `  ${e.code}  ${e.meaning}`).join('\n')}`;

export interface CliOptions {
  run: RunOptions;
  junit?: string;
  json?: string;
  summary?: string;
  /** Print the coverage matrix after the summary. */
  coverage: boolean;
  /** Only the pre-flight (preflight.ts): does the run fit the test-key quota left? */
  preflight: boolean;
  quiet: boolean;
  help: boolean;
}

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} takes a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** The command line parsed by node:util; its own errors become usage errors. */
function parseArgv(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: false,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string', multiple: true },
        'other-api-key': { type: 'string', multiple: true },
        'client-id': { type: 'string' },
        'client-secret': { type: 'string' },
        seed: { type: 'string' },
        runs: { type: 'string' },
        'read-only': { type: 'boolean' },
        'no-credentials': { type: 'boolean' },
        profile: { type: 'string' },
        target: { type: 'string' },
        'save-token': { type: 'string' },
        'allow-live-writes': { type: 'boolean' },
        'examples-only': { type: 'boolean' },
        'probe-limits': { type: 'boolean' },
        'no-sandbox': { type: 'boolean' },
        'strict-provisional': { type: 'boolean' },
        tag: { type: 'string', multiple: true },
        operation: { type: 'string', multiple: true },
        phase: { type: 'string', multiple: true },
        'max-requests': { type: 'string' },
        'max-quota': { type: 'string' },
        ledger: { type: 'string' },
        'quota-reserve': { type: 'string' },
        preflight: { type: 'boolean' },
        junit: { type: 'string' },
        json: { type: 'string' },
        summary: { type: 'string' },
        coverage: { type: 'boolean' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  const parsed = parseArgv(argv);
  const v = parsed.values;
  if (v.help) return { run: { baseUrl: '' }, quiet: false, help: true, coverage: false, preflight: false };
  const baseUrl = v['base-url'] ?? env.CLS_BASE_URL;
  if (!baseUrl) throw new UsageError('--base-url (or CLS_BASE_URL) is required');
  const phases = (v.phase ?? []).flatMap((p) => splitList(p));
  for (const p of phases) {
    if (!PHASES.includes(p as Phase)) throw new UsageError(`unknown phase ${p}: one of ${PHASES.join(', ')}`);
  }
  const apiKeys = [...(v['api-key'] ?? []), ...apiKeysFromEnv(env, 'CLS_API_KEY')];
  const otherApiKeys = [...(v['other-api-key'] ?? []), ...apiKeysFromEnv(env, 'CLS_OTHER_API_KEY')];
  const clientId = v['client-id'] ?? env.CLS_CLIENT_ID;
  const clientSecret = v['client-secret'] ?? env.CLS_CLIENT_SECRET;
  if (Boolean(clientId) !== Boolean(clientSecret)) throw new UsageError('--client-id and --client-secret go together');
  const otherClientId = env.CLS_OTHER_CLIENT_ID;
  const otherClientSecret = env.CLS_OTHER_CLIENT_SECRET;
  if (Boolean(otherClientId) !== Boolean(otherClientSecret))
    throw new UsageError('CLS_OTHER_CLIENT_ID and CLS_OTHER_CLIENT_SECRET go together');
  if (v['examples-only'] && v['probe-limits'])
    throw new UsageError('--examples-only and --probe-limits exclude each other');
  const profile = v.profile ?? 'full';
  if (!PROFILES.includes(profile as Profile)) throw new UsageError(`--profile is one of ${PROFILES.join(', ')}`);
  const target = v.target ?? 'server';
  if (!TARGETS.includes(target as Target)) throw new UsageError(`--target is one of ${TARGETS.join(', ')}`);
  const seed = integer('--seed', v.seed);
  const runs = integer('--runs', v.runs);
  const maxRequests = integer('--max-requests', v['max-requests']);
  const maxQuota = integer('--max-quota', v['max-quota']);
  const quotaReserve = integer('--quota-reserve', v['quota-reserve']);
  const run: RunOptions = {
    baseUrl,
    apiKeys: [...new Set(apiKeys)],
    otherApiKeys: [...new Set(otherApiKeys)],
    readOnly: v['read-only'] ?? false,
    allowLiveWrites: v['allow-live-writes'] ?? false,
    examplesOnly: v['examples-only'] ?? false,
    probeLimits: v['probe-limits'] ?? false,
    ...(v['no-sandbox'] ? { sandbox: false } : {}),
    strictProvisional: v['strict-provisional'] ?? false,
    tags: v.tag ?? [],
    operations: v.operation ?? [],
    noCredentials: v['no-credentials'] ?? false,
    ...(v['save-token'] ? { saveToken: v['save-token'] } : {}),
    ...(v.ledger ? { ledger: v.ledger } : {}),
    profile: profile as Profile,
    ...(v.target ? { target: target as Target } : {}),
    ...(env.CLS_EXPIRED_TOKEN ? { expiredToken: env.CLS_EXPIRED_TOKEN } : {}),
    ...(clientId ? { clientId } : {}),
    ...(clientSecret ? { clientSecret } : {}),
    ...(otherClientId && otherClientSecret ? { otherClientId, otherClientSecret } : {}),
    ...(phases.length > 0 ? { phases: phases as Phase[] } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(runs !== undefined ? { runs } : {}),
    ...(maxRequests !== undefined ? { maxRequests } : {}),
    ...(maxQuota !== undefined ? { maxQuota } : {}),
    ...(quotaReserve !== undefined ? { quotaReserve } : {}),
  };
  return {
    run,
    quiet: v.quiet ?? false,
    help: false,
    coverage: v.coverage ?? false,
    preflight: v.preflight ?? false,
    ...(v.junit ? { junit: v.junit } : {}),
    ...(v.json ? { json: v.json } : {}),
    ...(v.summary ? { summary: v.summary } : {}),
  };
}
