import type { KeyArea } from '@cls-api/server';
import type { Owner } from './environment.js';
import type { Domain } from './server.js';
import { KEY_AREAS, KEY_ENVS, type AccountStore, type KeyEnv } from './store/interface.js';

export interface DemoApiKey {
  area: KeyArea;
  env: KeyEnv;
  api_key: string;
}

export interface DemoClient {
  env: KeyEnv;
  client_id: string;
  client_secret: string;
}

export interface DemoAccount {
  account_id: string;
  name: string;
  paid: boolean;
  api_keys: DemoApiKey[];
  /** The test environment's client credentials (every demo account has them). */
  client_id: string;
  client_secret: string;
  /** Client credentials of every environment the account has keys for, test first. */
  clients: DemoClient[];
  /** What the domain's demo data set put in each environment of this account (order numbers, …), when it says. */
  environments: Partial<Record<KeyEnv, Record<string, unknown>>>;
}

/**
 * The code `seed --json` gives its refusal of a database with accounts, so that a caller (`pnpm start`) need not
 * match its words.
 */
export const DATABASE_NOT_EMPTY = 'DATABASE_NOT_EMPTY';

export class NotEmptyError extends Error {
  readonly code = DATABASE_NOT_EMPTY;
  constructor() {
    super('the database already has accounts: demo data is loaded only into an empty database');
    this.name = 'NotEmptyError';
  }
}

const PLAN: Array<{ name: string; paid: boolean; envs: KeyEnv[] }> = [
  { name: 'Demo Seller', paid: true, envs: ['test', 'live'] },
  { name: 'Second Seller', paid: false, envs: ['test'] },
];

/**
 * Two sellers (one paid with test and live keys, one unpaid with test keys), client credentials for each of their
 * environments, and the domain's demo data set in each environment that has keys: test and live are separate
 * data (DECISIONS G20), so a printed live key finds data of its own. Refuses a database that already has
 * accounts: keys are stored only as hashes, so a second run could not show the first run's keys.
 */
export async function provisionDemo(accounts: AccountStore, domain: Domain, now: Date): Promise<DemoAccount[]> {
  if ((await accounts.countAccounts()) > 0) throw new NotEmptyError();
  const provisioned: DemoAccount[] = [];
  for (const plan of PLAN) {
    const account = await accounts.createAccount({ name: plan.name, paid: plan.paid, link: KEY_AREAS }, now);
    const envs = KEY_ENVS.filter((env) => plan.envs.includes(env));
    const api_keys: DemoApiKey[] = [];
    for (const env of envs) {
      for (const area of KEY_AREAS)
        api_keys.push({
          area,
          env,
          api_key: (await accounts.createApiKey(account.account_id, area, env, now)).api_key,
        });
    }
    const clients: DemoClient[] = [];
    for (const env of envs) clients.push({ env, ...(await accounts.createClient(account.account_id, env, now)) });
    const test = clients.find((c) => c.env === 'test')!;
    provisioned.push({
      account_id: account.account_id,
      name: account.name,
      paid: account.paid,
      api_keys,
      client_id: test.client_id,
      client_secret: test.client_secret,
      clients,
      environments: {},
    });
  }
  const owners: Owner[] = provisioned.flatMap((a) =>
    a.clients.map((c) => ({ accountId: a.account_id, environment: c.env })),
  );
  const summary = await domain.seedDemo({ owners, now });
  const perOwner = (summary as { accounts?: unknown } | undefined)?.accounts;
  if (Array.isArray(perOwner)) {
    for (const entry of perOwner as Array<Record<string, unknown>>) {
      const target = provisioned.find((a) => a.account_id === entry.account_id);
      const env = KEY_ENVS.find((e) => e === entry.environment);
      if (!target || !env) continue;
      const { account_id: _account, environment: _environment, ...rest } = entry;
      target.environments[env] = rest;
    }
  }
  return provisioned;
}
