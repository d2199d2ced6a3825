// runContractTests: builds the cases from the contract, runs them one after another against the server, and
// returns the report (also written as JUnit XML and JSON when asked). Each step has its file in run/; the choice of
// cases is the plan's (plan/selection.ts).
import type { CaseDef, CaseResult } from './case.js';
import { Contract } from '../contract/contract.js';
import { LIVE_READ_ONLY } from '../plan/environment.js';
import { readLedger, recordRun, stalePairs, writeLedger } from '../matrix/ledger.js';
import { PR_ROTATION } from '../plan/profile.js';
import { QuotaPlan } from '../plan/quota-plan.js';
import type { Report } from '../report/report.js';
import type { RunOptions } from '../plan/run-options.js';
import { checkBaseUrl } from './base-url.js';
import { runCases } from './cases.js';
import { runCredentials } from './credentials.js';
import { finishRun } from './finish.js';
import { SandboxAccess } from './sandbox.js';
import { assembleReport } from './report.js';
import { quotaCap, runEnv } from './run-env.js';
import { selectCases } from '../plan/selection.js';
import { topUp } from './top-up.js';
import { checkServer, misjudgedResult, statelessProbe } from './server-checks.js';

export type { RunOptions } from '../plan/run-options.js';
export { NO_CREDENTIAL } from './credentials.js';
export { DEFAULT_QUOTA_RESERVE } from './run-env.js';

export async function runContractTests(given: RunOptions): Promise<Report> {
  // A stateless mock is a target of its own: only what holds without state (the examples, asked for with Prefer),
  // no quota plan (a mock has no quota), no credential needed.
  const options: RunOptions = given.target === 'mock' ? { ...given, examplesOnly: true } : given;
  const startedAt = new Date();
  const log = options.log ?? (() => {});
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  checkBaseUrl(options.baseUrl);
  const contract = new Contract(options.spec);
  const credentials = runCredentials(options, contract);
  const { environment } = credentials;
  const profile = options.profile ?? 'full';
  const maxQuota = quotaCap(options, profile);
  const env = runEnv(options, contract, credentials, seed, maxQuota);
  const ledger = options.ledger !== undefined ? readLedger(options.ledger) : undefined;
  const { phases, selected, profilePlan, standby } = selectCases(env, options, profile, seed, ledger);

  log(`Contract ${contract.doc.info.title} ${contract.doc.info.version} against ${options.baseUrl}`);
  log(
    `seed ${seed} · profile ${profile}${profilePlan.slots ? ` (slot ${profilePlan.slot! + 1} of ${profilePlan.slots})` : ''} · phases ${phases.join(', ')} · ${selected.length} cases${environment.name ? ` · ${environment.name} environment` : ''}${env.readOnly ? ` · read-only${options.readOnly ? '' : ` (${LIVE_READ_ONLY})`}` : ''}`,
  );
  const { outcome, authentication, misjudged } = await checkServer(env, selected);
  // A server that takes a made-up key and answers a read of a record no one created is a stateless mock: the run
  // starts again as one (--target mock), said in the summary, unless the target was given.
  if (authentication && options.target === undefined && !outcome.fatal) {
    const stateless = await statelessProbe(env).catch(() => undefined);
    if (stateless) {
      log(`  ! ${stateless}: running as --target mock`);
      return runContractTests({ ...given, target: 'mock', detectedMock: stateless });
    }
  }
  // The summary says it in full (report.ts, authenticationBanner); the progress only flags it as the cases fail.
  if (authentication) log(`  ! a made-up API key was accepted: this server does not authenticate (see the summary)`);

  env.sandbox = new SandboxAccess(env, options.sandbox ?? true);
  const results: CaseResult[] = misjudged.map((m) => misjudgedResult(env, m));
  const quotaPlan = maxQuota !== undefined ? new QuotaPlan(env, env.transport) : undefined;
  results.push(...(await runCases(env, selected, options, quotaPlan, outcome, log)));
  if (ledger && profile === 'pr' && !outcome.fatal) {
    const runWave = (cases: CaseDef[]) => runCases(env, cases, options, quotaPlan, outcome, log);
    results.push(...(await topUp(env, standby, ledger, profilePlan, results, runWave, log)));
  }
  await finishRun(env, options, outcome, results);
  const report = assembleReport(
    {
      env,
      options,
      startedAt,
      phases,
      profilePlan,
      environment,
      outcome,
      ...(authentication ? { authentication } : {}),
      ...(quotaPlan ? { quotaPlan } : {}),
      ...(env.sandbox.report() ? { sandbox: env.sandbox.report()! } : {}),
    },
    results,
  );
  // A run that stopped proved nothing for the ledger: it stays as it was.
  if (options.ledger !== undefined && ledger && report.coverage && !outcome.fatal) {
    const after = recordRun(ledger, report.coverage, results, startedAt, (id) => env.records.madeBy(id));
    writeLedger(options.ledger, after);
    report.ledger = {
      file: options.ledger,
      run: after.runs,
      window: PR_ROTATION,
      stale: stalePairs(after, report.coverage, PR_ROTATION),
    };
  }
  return report;
}

export type { Report };
