// The SQLite implementation of `AccountStore` (store/interface.ts): accounts, linked service accounts, API keys,
// client credentials and refresh tokens stored only as SHA-256 hashes, usage counters per account, month and key
// environment.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { KeyArea } from '@cls-api/server';
import type { Environment } from '../environment.js';
import type { Db } from './db.js';
import type { Account, AccountStore, ApiKeyIdentity, ClientIdentity, KeyEnv, RefreshOutcome } from './interface.js';
import { KEY_AREAS, KEY_ENVS, ProvisioningError } from './interface.js';
import { Statements } from './statements.js';

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

export class SqliteAccountStore implements AccountStore {
  private readonly statements: Statements;

  constructor(private readonly db: Db) {
    this.statements = new Statements(db);
  }

  private statement(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  countAccounts(): number {
    return (this.statement('SELECT COUNT(*) AS n FROM accounts').get() as { n: number }).n;
  }

  createAccount(input: { name: string; paid: boolean; link: readonly KeyArea[] }, now: Date): Account {
    const name = input.name.trim();
    if (!name || name.length > 200 || /[\x00-\x1f\x7f]/.test(name)) {
      throw new ProvisioningError('the account name must be 1 to 200 characters on one line');
    }
    const accountId = `acc_${randomBase62(16)}`;
    this.db.transaction(() => {
      this.statement('INSERT INTO accounts (account_id, name, paid, created_at) VALUES (?, ?, ?, ?)').run(
        accountId,
        name,
        input.paid ? 1 : 0,
        epoch(now),
      );
      for (const area of new Set(input.link)) this.insertLink(accountId, area, `${area}-${accountId}`, now);
    })();
    return this.getAccount(accountId)!;
  }

  getAccount(accountId: string): Account | undefined {
    const row = this.statement('SELECT * FROM accounts WHERE account_id = ?').get(accountId) as AccountRow | undefined;
    if (!row) return undefined;
    const areas = (
      this.statement('SELECT area FROM service_accounts WHERE account_id = ? ORDER BY area').all(accountId) as Array<{
        area: KeyArea;
      }>
    ).map((r) => r.area);
    return {
      account_id: row.account_id,
      name: row.name,
      paid: row.paid === 1,
      linked_areas: areas,
      created_at: row.created_at,
    };
  }

  private requireAccount(accountId: string): Account {
    const account = this.getAccount(accountId);
    if (!account) throw new ProvisioningError(`no account ${accountId}`);
    return account;
  }

  setPaid(accountId: string, paid: boolean): Account {
    this.requireAccount(accountId);
    this.statement('UPDATE accounts SET paid = ? WHERE account_id = ?').run(paid ? 1 : 0, accountId);
    return this.getAccount(accountId)!;
  }

  private insertLink(accountId: string, area: KeyArea, ref: string, now: Date): void {
    if (!KEY_AREAS.includes(area))
      throw new ProvisioningError(`no service area ${area}; use one of ${KEY_AREAS.join(', ')}`);
    this.statement(
      'INSERT OR IGNORE INTO service_accounts (account_id, area, service_account_ref, linked_at) VALUES (?, ?, ?, ?)',
    ).run(accountId, area, ref, epoch(now));
  }

  linkServiceAccount(accountId: string, area: KeyArea, serviceAccountRef: string, now: Date): Account {
    this.requireAccount(accountId);
    this.insertLink(accountId, area, serviceAccountRef, now);
    return this.getAccount(accountId)!;
  }

  createApiKey(accountId: string, area: KeyArea, env: KeyEnv, now: Date): { api_key: string; key_id: string } {
    const account = this.requireAccount(accountId);
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
    this.statement(
      'INSERT INTO api_keys (key_id, account_id, area, env, key_hash, key_hint, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(keyId, accountId, area, env, sha256(apiKey), apiKey.slice(0, area.length + env.length + 6), epoch(now));
    return { api_key: apiKey, key_id: keyId };
  }

  findApiKey(apiKey: string): ApiKeyIdentity | undefined {
    const row = this.statement(
      `SELECT k.account_id, k.area, k.env, a.paid FROM api_keys k JOIN accounts a ON a.account_id = k.account_id
         WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    ).get(sha256(apiKey)) as { account_id: string; area: KeyArea; env: KeyEnv; paid: number } | undefined;
    return row && { account_id: row.account_id, area: row.area, env: row.env, paid: row.paid === 1 };
  }

  revokeApiKey(apiKey: string, now: Date): boolean {
    return (
      this.statement('UPDATE api_keys SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL').run(
        epoch(now),
        sha256(apiKey),
      ).changes === 1
    );
  }

  createClient(accountId: string, environment: Environment, now: Date): { client_id: string; client_secret: string } {
    const account = this.requireAccount(accountId);
    if (!KEY_ENVS.includes(environment))
      throw new ProvisioningError(`the environment must be test or live, not ${environment}`);
    if (environment === 'live' && !account.paid) {
      throw new ProvisioningError(`live client credentials need a paid subscription; account ${accountId} is not paid`);
    }
    // The environment segment mirrors the API key's (DECISIONS G21); the stored column is what counts.
    const clientId = `cli_${environment}_${randomBase62(20)}`;
    const clientSecret = `sec_${randomBase62(40)}`;
    this.statement(
      'INSERT INTO client_credentials (client_id, account_id, environment, secret_hash, created_at) VALUES (?, ?, ?, ?, ?)',
    ).run(clientId, accountId, environment, sha256(clientSecret), epoch(now));
    return { client_id: clientId, client_secret: clientSecret };
  }

  verifyClient(clientId: string, clientSecret: string): ClientIdentity | undefined {
    const row = this.statement(
      'SELECT account_id, environment, secret_hash FROM client_credentials WHERE client_id = ? AND revoked_at IS NULL',
    ).get(clientId) as { account_id: string; environment: Environment; secret_hash: string } | undefined;
    const given = Buffer.from(sha256(clientSecret), 'hex');
    // Compare even when the client is unknown, so the response time does not tell which half was wrong.
    const stored = Buffer.from(row?.secret_hash ?? sha256(`no client:${clientSecret}`), 'hex');
    return row && timingSafeEqual(given, stored)
      ? { account_id: row.account_id, environment: row.environment }
      : undefined;
  }

  issueRefreshToken(
    input: { accountId: string; clientId: string; familyId?: string; ttlSeconds: number },
    now: Date,
  ): { refresh_token: string; family_id: string } {
    const token = `rft_${randomBase62(40)}`;
    const familyId = input.familyId ?? randomUUID();
    this.statement(
      'INSERT INTO refresh_tokens (token_hash, family_id, account_id, client_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(sha256(token), familyId, input.accountId, input.clientId, epoch(now), epoch(now) + input.ttlSeconds);
    return { refresh_token: token, family_id: familyId };
  }

  useRefreshToken(refreshToken: string, now: Date): RefreshOutcome {
    const hash = sha256(refreshToken);
    return this.db
      .transaction((): RefreshOutcome => {
        const row = this.statement(
          `SELECT t.account_id, t.client_id, t.family_id, t.expires_at, t.used_at, c.revoked_at AS client_revoked_at, c.environment
           FROM refresh_tokens t JOIN client_credentials c ON c.client_id = t.client_id WHERE t.token_hash = ?`,
        ).get(hash) as
          | {
              account_id: string;
              client_id: string;
              family_id: string;
              expires_at: number;
              used_at: number | null;
              client_revoked_at: number | null;
              environment: Environment;
            }
          | undefined;
        if (!row || row.client_revoked_at !== null) return { kind: 'invalid' };
        if (row.used_at !== null) {
          // A spent token presented again was copied: end every token of its family.
          this.statement('UPDATE refresh_tokens SET used_at = ? WHERE family_id = ? AND used_at IS NULL').run(
            epoch(now),
            row.family_id,
          );
          return { kind: 'invalid' };
        }
        if (epoch(now) >= row.expires_at) return { kind: 'expired' };
        const spent = this.statement(
          'UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL',
        ).run(epoch(now), hash);
        if (spent.changes !== 1) return { kind: 'invalid' };
        // A refreshed token keeps the environment of the client credentials of its family (DECISIONS G21).
        return {
          kind: 'ok',
          account_id: row.account_id,
          client_id: row.client_id,
          family_id: row.family_id,
          environment: row.environment,
        };
      })
      .immediate();
  }

  renewRefreshToken(
    refreshToken: string,
    ttlSeconds: number,
    now: Date,
  ): RefreshOutcome | (Extract<RefreshOutcome, { kind: 'ok' }> & { refresh_token: string }) {
    return this.db
      .transaction(() => {
        const outcome = this.useRefreshToken(refreshToken, now);
        if (outcome.kind !== 'ok') return outcome;
        const next = this.issueRefreshToken(
          { accountId: outcome.account_id, clientId: outcome.client_id, familyId: outcome.family_id, ttlSeconds },
          now,
        );
        return { ...outcome, refresh_token: next.refresh_token };
      })
      .immediate();
  }

  countTestCall(accountId: string, month: string, limit: number): { allowed: boolean; calls: number } {
    // One statement: the increment happens only below the limit, so concurrent callers (in this process or in
    // another one on the same file) can never push the count past it.
    const row = this.statement(
      `INSERT INTO usage_counters (account_id, month, env, calls) SELECT ?, ?, 'test', 1 WHERE ? >= 1
         ON CONFLICT (account_id, month, env) DO UPDATE SET calls = calls + 1 WHERE calls < ?
         RETURNING calls`,
    ).get(accountId, month, limit, limit) as { calls: number } | undefined;
    if (row) return { allowed: true, calls: row.calls };
    return { allowed: false, calls: this.usage(accountId, month, 'test') };
  }

  countLiveCall(accountId: string, month: string): number {
    const row = this.statement(
      `INSERT INTO usage_counters (account_id, month, env, calls) VALUES (?, ?, 'live', 1)
         ON CONFLICT (account_id, month, env) DO UPDATE SET calls = calls + 1 RETURNING calls`,
    ).get(accountId, month) as { calls: number };
    return row.calls;
  }

  addUsage(accountId: string, month: string, env: KeyEnv, calls: number): void {
    this.statement(
      `INSERT INTO usage_counters (account_id, month, env, calls) VALUES (?, ?, ?, ?)
         ON CONFLICT (account_id, month, env) DO UPDATE SET calls = calls + excluded.calls`,
    ).run(accountId, month, env, calls);
  }

  usage(accountId: string, month: string, env: KeyEnv): number {
    const row = this.statement('SELECT calls FROM usage_counters WHERE account_id = ? AND month = ? AND env = ?').get(
      accountId,
      month,
      env,
    ) as { calls: number } | undefined;
    return row?.calls ?? 0;
  }

  resetUsage(accountId: string, month: string, env: KeyEnv): void {
    this.requireAccount(accountId);
    this.statement('DELETE FROM usage_counters WHERE account_id = ? AND month = ? AND env = ?').run(
      accountId,
      month,
      env,
    );
  }
}
