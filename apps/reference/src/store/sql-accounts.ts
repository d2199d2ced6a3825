// `AccountStore` (store/interface.ts) in SQL, once for both engines (store/sql.ts): accounts, linked service
// accounts, API keys, client credentials and refresh tokens stored only as SHA-256 hashes, usage counters per
// account, month and key environment. The schemas are `migrations/sqlite/001_accounts.sql` (with 003) and
// `migrations/postgres/001_schema.sql`.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { KeyArea } from '@cls-api/server';
import type { Environment } from '../environment.js';
import type {
  Account,
  AccountListing,
  AccountStore,
  ApiKeyIdentity,
  ClientIdentity,
  KeyEnv,
  RefreshOutcome,
  UsageCountersPlace,
} from './interface.js';
import { KEY_AREAS, KEY_ENVS, ProvisioningError } from './interface.js';
import type { SqlEngine, SqlExecutor } from './sql.js';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniform base62 characters: bytes at or above 248 (= 4 × 62) are dropped so that no character is favoured. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A refresh token as it is handed out (it is kept only as its SHA-256 hash). */
export function newRefreshToken(): string {
  return `rft_${randomBase62(40)}`;
}

export function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

const epoch = (d: Date) => Math.floor(d.getTime() / 1000);

interface AccountRow {
  account_id: string;
  name: string;
  paid: number;
  created_at: number;
}

type RenewOutcome = RefreshOutcome | (Extract<RefreshOutcome, { kind: 'ok' }> & { refresh_token: string });

export class SqlAccountStore implements AccountStore {
  constructor(readonly engine: SqlEngine) {}

  async countAccounts(): Promise<number> {
    return (await this.engine.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts'))?.n ?? 0;
  }

  async listAccounts(): Promise<AccountListing[]> {
    const rows = await this.engine.all<AccountRow>('SELECT * FROM accounts ORDER BY created_at, account_id');
    const areas = await this.engine.all<{ account_id: string; area: KeyArea }>(
      'SELECT account_id, area FROM service_accounts ORDER BY account_id, area',
    );
    const keys = await this.engine.all<{
      account_id: string;
      area: KeyArea;
      env: KeyEnv;
      key_hint: string;
      created_at: number;
    }>(
      'SELECT account_id, area, env, key_hint, created_at FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at, key_id',
    );
    return rows.map((row) => ({
      account_id: row.account_id,
      name: row.name,
      paid: row.paid === 1,
      linked_areas: areas.filter((a) => a.account_id === row.account_id).map((a) => a.area),
      created_at: row.created_at,
      api_keys: keys
        .filter((k) => k.account_id === row.account_id)
        .map(({ area, env, key_hint, created_at }) => ({ area, env, key_hint, created_at: Number(created_at) })),
    }));
  }

  async recordUsageCounters(where: UsageCountersPlace, now: Date): Promise<void> {
    const value = where.kind === 'redis' ? `redis ${where.url}` : 'database';
    await this.engine.run(
      `INSERT INTO deployment (name, value, updated_at) VALUES ('usage_counters', ?, ?)
         ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      [value, epoch(now)],
    );
  }

  async usageCountersPlace(): Promise<UsageCountersPlace | undefined> {
    const row = await this.engine.get<{ value: string }>("SELECT value FROM deployment WHERE name = 'usage_counters'");
    if (!row) return undefined;
    return row.value.startsWith('redis ') ? { kind: 'redis', url: row.value.slice(6) } : { kind: 'database' };
  }

  async createAccount(input: { name: string; paid: boolean; link: readonly KeyArea[] }, now: Date): Promise<Account> {
    const name = input.name.trim();
    if (!name || name.length > 200 || /[\x00-\x1f\x7f]/.test(name)) {
      throw new ProvisioningError('the account name must be 1 to 200 characters on one line');
    }
    for (const area of input.link) checkArea(area);
    const accountId = `acc_${randomBase62(16)}`;
    await this.engine.transaction(async (tx) => {
      await tx.run('INSERT INTO accounts (account_id, name, paid, created_at) VALUES (?, ?, ?, ?)', [
        accountId,
        name,
        input.paid ? 1 : 0,
        epoch(now),
      ]);
      for (const area of new Set(input.link)) await this.insertLink(tx, accountId, area, `${area}-${accountId}`, now);
    });
    return (await this.getAccount(accountId))!;
  }

  async getAccount(accountId: string): Promise<Account | undefined> {
    const row = await this.engine.get<AccountRow>('SELECT * FROM accounts WHERE account_id = ?', [accountId]);
    if (!row) return undefined;
    const areas = (
      await this.engine.all<{ area: KeyArea }>('SELECT area FROM service_accounts WHERE account_id = ? ORDER BY area', [
        accountId,
      ])
    ).map((r) => r.area);
    return {
      account_id: row.account_id,
      name: row.name,
      paid: row.paid === 1,
      linked_areas: areas,
      created_at: row.created_at,
    };
  }

  private async requireAccount(accountId: string): Promise<Account> {
    const account = await this.getAccount(accountId);
    if (!account) throw new ProvisioningError(`no account ${accountId}`);
    return account;
  }

  async setPaid(accountId: string, paid: boolean): Promise<Account> {
    await this.requireAccount(accountId);
    await this.engine.run('UPDATE accounts SET paid = ? WHERE account_id = ?', [paid ? 1 : 0, accountId]);
    return (await this.getAccount(accountId))!;
  }

  private async insertLink(exec: SqlExecutor, accountId: string, area: KeyArea, ref: string, now: Date): Promise<void> {
    checkArea(area);
    await exec.run(
      `INSERT INTO service_accounts (account_id, area, service_account_ref, linked_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (account_id, area) DO NOTHING`,
      [accountId, area, ref, epoch(now)],
    );
  }

  async linkServiceAccount(accountId: string, area: KeyArea, serviceAccountRef: string, now: Date): Promise<Account> {
    await this.requireAccount(accountId);
    await this.insertLink(this.engine, accountId, area, serviceAccountRef, now);
    return (await this.getAccount(accountId))!;
  }

  async createApiKey(
    accountId: string,
    area: KeyArea,
    env: KeyEnv,
    now: Date,
  ): Promise<{ api_key: string; key_id: string }> {
    const account = await this.requireAccount(accountId);
    if (!KEY_AREAS.includes(area))
      throw new ProvisioningError(`no API key is issued for area ${area}; use one of ${KEY_AREAS.join(', ')}`);
    if (!KEY_ENVS.includes(env)) throw new ProvisioningError(`the key environment must be test or live, not ${env}`);
    if (!account.linked_areas.includes(area)) {
      throw new ProvisioningError(
        `account ${accountId} has not linked a ${area} service account; link it before issuing a ${area} key`,
      );
    }
    if (env === 'live' && !account.paid)
      throw new ProvisioningError(`live keys need a paid subscription; account ${accountId} is not paid`);
    const apiKey = `${area}_${env}_${randomBase62(32)}`;
    const keyId = `key_${randomBase62(16)}`;
    await this.engine.run(
      'INSERT INTO api_keys (key_id, account_id, area, env, key_hash, key_hint, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [keyId, accountId, area, env, sha256(apiKey), apiKey.slice(0, area.length + env.length + 6), epoch(now)],
    );
    return { api_key: apiKey, key_id: keyId };
  }

  async findApiKey(apiKey: string): Promise<ApiKeyIdentity | undefined> {
    const row = await this.engine.get<{ account_id: string; area: KeyArea; env: KeyEnv; paid: number }>(
      `SELECT k.account_id, k.area, k.env, a.paid FROM api_keys k JOIN accounts a ON a.account_id = k.account_id
         WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
      [sha256(apiKey)],
    );
    return row && { account_id: row.account_id, area: row.area, env: row.env, paid: row.paid === 1 };
  }

  async revokeApiKey(apiKey: string, now: Date): Promise<boolean> {
    return (
      (await this.engine.run('UPDATE api_keys SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL', [
        epoch(now),
        sha256(apiKey),
      ])) === 1
    );
  }

  async createClient(
    accountId: string,
    environment: Environment,
    now: Date,
  ): Promise<{ client_id: string; client_secret: string }> {
    const account = await this.requireAccount(accountId);
    if (!KEY_ENVS.includes(environment))
      throw new ProvisioningError(`the environment must be test or live, not ${environment}`);
    if (environment === 'live' && !account.paid) {
      throw new ProvisioningError(`live client credentials need a paid subscription; account ${accountId} is not paid`);
    }
    // The environment segment mirrors the API key's (DECISIONS G21); the stored column is what counts.
    const clientId = `cli_${environment}_${randomBase62(20)}`;
    const clientSecret = `sec_${randomBase62(40)}`;
    await this.engine.run(
      'INSERT INTO client_credentials (client_id, account_id, environment, secret_hash, created_at) VALUES (?, ?, ?, ?, ?)',
      [clientId, accountId, environment, sha256(clientSecret), epoch(now)],
    );
    return { client_id: clientId, client_secret: clientSecret };
  }

  async verifyClient(clientId: string, clientSecret: string): Promise<ClientIdentity | undefined> {
    const row = await this.engine.get<{ account_id: string; environment: Environment; secret_hash: string }>(
      'SELECT account_id, environment, secret_hash FROM client_credentials WHERE client_id = ? AND revoked_at IS NULL',
      [clientId],
    );
    const given = Buffer.from(sha256(clientSecret), 'hex');
    // Compare even when the client is unknown, so the response time does not tell which half was wrong.
    const stored = Buffer.from(row?.secret_hash ?? sha256(`no client:${clientSecret}`), 'hex');
    return row && timingSafeEqual(given, stored)
      ? { account_id: row.account_id, environment: row.environment }
      : undefined;
  }

  async activeClient(clientId: string): Promise<ClientIdentity | undefined> {
    return this.engine.get<ClientIdentity>(
      'SELECT account_id, environment FROM client_credentials WHERE client_id = ? AND revoked_at IS NULL',
      [clientId],
    );
  }

  issueRefreshToken(
    input: { accountId: string; clientId: string; familyId?: string; ttlSeconds: number },
    now: Date,
  ): Promise<{ refresh_token: string; family_id: string }> {
    return this.insertRefreshToken(this.engine, input, now);
  }

  private async insertRefreshToken(
    exec: SqlExecutor,
    input: { accountId: string; clientId: string; familyId?: string; ttlSeconds: number },
    now: Date,
  ): Promise<{ refresh_token: string; family_id: string }> {
    const token = newRefreshToken();
    const familyId = input.familyId ?? randomUUID();
    await exec.run(
      'INSERT INTO refresh_tokens (token_hash, family_id, account_id, client_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
      [sha256(token), familyId, input.accountId, input.clientId, epoch(now), epoch(now) + input.ttlSeconds],
    );
    return { refresh_token: token, family_id: familyId };
  }

  useRefreshToken(refreshToken: string, now: Date): Promise<RefreshOutcome> {
    return this.engine.transaction((tx) => this.spendRefreshToken(tx, refreshToken, now));
  }

  private async spendRefreshToken(tx: SqlExecutor, refreshToken: string, now: Date): Promise<RefreshOutcome> {
    const hash = sha256(refreshToken);
    const row = await tx.get<{
      account_id: string;
      client_id: string;
      family_id: string;
      expires_at: number;
      used_at: number | null;
      client_revoked_at: number | null;
      environment: Environment;
    }>(
      `SELECT t.account_id, t.client_id, t.family_id, t.expires_at, t.used_at, c.revoked_at AS client_revoked_at, c.environment
       FROM refresh_tokens t JOIN client_credentials c ON c.client_id = t.client_id WHERE t.token_hash = ?`,
      [hash],
    );
    if (!row || row.client_revoked_at !== null) return { kind: 'invalid' };
    if (row.used_at !== null) {
      // A spent token presented again was copied: end every token of its family.
      await tx.run('UPDATE refresh_tokens SET used_at = ? WHERE family_id = ? AND used_at IS NULL', [
        epoch(now),
        row.family_id,
      ]);
      return { kind: 'invalid' };
    }
    if (epoch(now) >= row.expires_at) return { kind: 'expired' };
    // The condition on used_at makes the spend single-use even when two requests (two instances) read the token
    // unspent at once: the second update finds it spent and changes nothing.
    const spent = await tx.run('UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL', [
      epoch(now),
      hash,
    ]);
    if (spent !== 1) return { kind: 'invalid' };
    // A refreshed token keeps the environment of the client credentials of its family (DECISIONS G21).
    return {
      kind: 'ok',
      account_id: row.account_id,
      client_id: row.client_id,
      family_id: row.family_id,
      environment: row.environment,
    };
  }

  renewRefreshToken(refreshToken: string, ttlSeconds: number, now: Date): Promise<RenewOutcome> {
    return this.engine.transaction(async (tx): Promise<RenewOutcome> => {
      const outcome = await this.spendRefreshToken(tx, refreshToken, now);
      if (outcome.kind !== 'ok') return outcome;
      const next = await this.insertRefreshToken(
        tx,
        { accountId: outcome.account_id, clientId: outcome.client_id, familyId: outcome.family_id, ttlSeconds },
        now,
      );
      return { ...outcome, refresh_token: next.refresh_token };
    });
  }

  async countTestCall(accountId: string, month: string, limit: number): Promise<{ allowed: boolean; calls: number }> {
    // One statement: the increment happens only below the limit, so concurrent callers (in this process, in
    // another one on the same SQLite file, or in another instance on the same PostgreSQL database) can never push
    // the count past it.
    const row = await this.engine.get<{ calls: number }>(
      `INSERT INTO usage_counters (account_id, month, env, calls) SELECT ?, ?, 'test', 1 WHERE ? >= 1
         ON CONFLICT (account_id, month, env) DO UPDATE SET calls = usage_counters.calls + 1
         WHERE usage_counters.calls < ?
         RETURNING calls`,
      [accountId, month, limit, limit],
    );
    if (row) return { allowed: true, calls: row.calls };
    return { allowed: false, calls: await this.usage(accountId, month, 'test') };
  }

  // No statement here has a client-side timeout: one reported failed did not run and is not run later, so the
  // charge and write ids of G32 (which Redis needs) are not kept.
  async returnTestCall(accountId: string, month: string): Promise<void> {
    await this.engine.run(
      `UPDATE usage_counters SET calls = calls - 1 WHERE account_id = ? AND month = ? AND env = 'test' AND calls > 0`,
      [accountId, month],
    );
  }

  async addUsage(accountId: string, month: string, env: KeyEnv, calls: number): Promise<void> {
    await this.engine.run(
      `INSERT INTO usage_counters (account_id, month, env, calls) VALUES (?, ?, ?, ?)
         ON CONFLICT (account_id, month, env) DO UPDATE SET calls = usage_counters.calls + excluded.calls`,
      [accountId, month, env, calls],
    );
  }

  async usage(accountId: string, month: string, env: KeyEnv): Promise<number> {
    const row = await this.engine.get<{ calls: number }>(
      'SELECT calls FROM usage_counters WHERE account_id = ? AND month = ? AND env = ?',
      [accountId, month, env],
    );
    return row?.calls ?? 0;
  }

  async resetUsage(accountId: string, month: string, env: KeyEnv): Promise<void> {
    await this.requireAccount(accountId);
    await this.engine.run('DELETE FROM usage_counters WHERE account_id = ? AND month = ? AND env = ?', [
      accountId,
      month,
      env,
    ]);
  }
}

function checkArea(area: KeyArea): void {
  if (!KEY_AREAS.includes(area))
    throw new ProvisioningError(`no service area ${area}; use one of ${KEY_AREAS.join(', ')}`);
}
