// Credentials and how they appear in reports: every secret is replaced by the environment variable that holds it,
// so a report or a curl line can be pasted into a ticket without leaking a key.

import { apiKeyShape } from '@cls-api/spec';

export type Seller = 'primary' | 'other';

export interface ApiKeyCredential {
  kind: 'apiKey';
  key: string;
  /** `{area}_{env}_{random}`: the area the key is issued for (`wms`, `manager`, `cam`). */
  area: string;
  /** `test` or `live`: selects the monthly quota from `info.x-limits`. */
  env: string;
  seller: Seller;
  /** The environment variable a reproduction reads the key from. */
  ref: string;
}

export interface BearerCredential {
  kind: 'bearer';
  token: string;
  ref: string;
  /** Whose token it is: what it reads is that seller's (isolation.ts). */
  seller: Seller;
}

/** A header sent as given: a made-up or malformed credential, which is no secret. */
export interface RawCredential {
  kind: 'raw';
  headers: Record<string, string>;
}

export interface NoCredential {
  kind: 'none';
}

export type Credential = ApiKeyCredential | BearerCredential | RawCredential | NoCredential;

export function parseApiKey(key: string, seller: Seller): Omit<ApiKeyCredential, 'ref'> {
  const shape = apiKeyShape(key);
  if (!shape) {
    throw new UsageError(
      `an API key must look like {area}_{env}_{random} (for example wms_test_…); got one starting "${key.slice(0, 6)}…"`,
    );
  }
  return { kind: 'apiKey', key, area: shape.area, env: shape.env, seller };
}

export function keyCredentials(keys: string[], seller: Seller): ApiKeyCredential[] {
  const out: ApiKeyCredential[] = [];
  const perArea = new Map<string, number>();
  for (const key of keys) {
    const parsed = parseApiKey(key, seller);
    const n = (perArea.get(parsed.area) ?? 0) + 1;
    perArea.set(parsed.area, n);
    const base = `${seller === 'primary' ? 'CLS_API_KEY' : 'CLS_OTHER_API_KEY'}_${parsed.area.toUpperCase()}`;
    out.push({ ...parsed, ref: n === 1 ? base : `${base}_${n}` });
  }
  return out;
}

/** Replaces every known secret in a text by its `$ENV_VAR` reference. */
export class Redactor {
  private readonly secrets = new Map<string, string>();

  add(secret: string | undefined, ref: string): void {
    // Very short values would rewrite ordinary text; no real secret is that short.
    if (secret && secret.length >= 6) this.secrets.set(secret, ref);
  }

  redact(text: string): string {
    let out = text;
    for (const [secret, ref] of [...this.secrets].sort((a, b) => b[0].length - a[0].length)) {
      out = out.split(secret).join(`$${ref}`);
    }
    return out;
  }

  get refs(): string[] {
    return [...new Set(this.secrets.values())];
  }
}

/** A command line or option is wrong: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
