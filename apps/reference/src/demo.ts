import type { KeyArea } from '@cls-api/server';
import type { Domain } from './framework.js';
import { KEY_AREAS, type AccountStore, type KeyEnv } from './store/accounts.js';

export interface DemoApiKey {
  area: KeyArea;
  env: KeyEnv;
  api_key: string;
}

export interface DemoAccount {
  account_id: string;
  name: string;
  paid: boolean;
  api_keys: DemoApiKey[];
  client_id: string;
  client_secret: string;
  /** What the domain's demo data set put in this account (order numbers, invoice numbers, …), when it says. */
  [domainSummary: string]: unknown;
}

export class NotEmptyError extends Error {
  constructor() {
    super('the database already has accounts: demo data is loaded only into an empty database');
    this.name = 'NotEmptyError';
  }
}

const PLAN: Array<{ name: string; paid: boolean; keys: Array<[KeyArea, KeyEnv]> }> = [
  {
    name: 'Demo Seller',
    paid: true,
    keys: [...KEY_AREAS.map((a): [KeyArea, KeyEnv] => [a, 'test']), ...KEY_AREAS.map((a): [KeyArea, KeyEnv] => [a, 'live'])],
  },
  { name: 'Second Seller', paid: false, keys: KEY_AREAS.map((a): [KeyArea, KeyEnv] => [a, 'test']) },
];

/**
 * Two sellers (one paid with test and live keys, one unpaid with test keys), client credentials for each, and the
 * domain's demo data set in their accounts. Refuses a database that already has accounts: keys are stored only as
 * hashes, so a second run could not show the first run's keys.
 */
export async function provisionDemo(accounts: AccountStore, domain: Domain, now: Date): Promise<DemoAccount[]> {
  if (accounts.countAccounts() > 0) throw new NotEmptyError();
  const provisioned: DemoAccount[] = PLAN.map((plan) => {
    const account = accounts.createAccount({ name: plan.name, paid: plan.paid, link: KEY_AREAS }, now);
    const api_keys = plan.keys.map(([area, env]) => ({ area, env, api_key: accounts.createApiKey(account.account_id, area, env, now).api_key }));
    const client = accounts.createClient(account.account_id, now);
    return { account_id: account.account_id, name: account.name, paid: account.paid, api_keys, ...client };
  });
  const summary = await domain.seedDemo({ accountIds: provisioned.map((a) => a.account_id), now });
  const perAccount = (summary as { accounts?: unknown } | undefined)?.accounts;
  if (Array.isArray(perAccount)) {
    for (const entry of perAccount as Array<Record<string, unknown>>) {
      const target = provisioned.find((a) => a.account_id === entry.account_id);
      if (!target) continue;
      for (const [key, value] of Object.entries(entry)) if (!(key in target)) target[key] = value;
    }
  }
  return provisioned;
}
