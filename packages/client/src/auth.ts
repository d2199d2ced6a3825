import type { Client, Middleware } from 'openapi-fetch';
import type { paths } from '../generated/openapi.js';
import { apiKeyHeader, credentialsFor, type CredentialKind, type ErrorCode } from './contract.js';
import { ApiError, CredentialError, REDACTED } from './errors.js';
import type { Timers } from './timers.js';
import { toApiError } from './typing.js';

/** A JWT you manage yourself: the current token, and a callback that returns a fresh one when it has expired. */
export interface JwtTokenSource {
  /** The current JWT. When absent, `refresh` is called before the first request that needs it. */
  token?: string;
  /** Returns a new JWT; called once when a request comes back 401 `AUTH_EXPIRED_TOKEN`. */
  refresh?: () => Promise<string>;
}

/** Client credentials of the account, exchanged for a JWT through `POST /v3/auth/token`. */
export interface JwtClientCredentials {
  clientId: string;
  clientSecret: string;
}

export type JwtOptions = JwtTokenSource | JwtClientCredentials;

const EXPIRED: ErrorCode = 'AUTH_EXPIRED_TOKEN';

function isClientCredentials(options: JwtOptions): options is JwtClientCredentials {
  return 'clientId' in options || 'clientSecret' in options;
}

export function validateJwtOptions(options: JwtOptions): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('jwt must be an object');
  if (isClientCredentials(options)) {
    if (
      typeof options.clientId !== 'string' ||
      options.clientId === '' ||
      typeof options.clientSecret !== 'string' ||
      options.clientSecret === ''
    ) {
      throw new TypeError('jwt: clientId and clientSecret must both be non-empty strings');
    }
    return;
  }
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token === '')) {
    throw new TypeError('jwt.token must be a non-empty string');
  }
  if (options.refresh !== undefined && typeof options.refresh !== 'function') {
    throw new TypeError('jwt.refresh must be a function returning a Promise of the new token');
  }
  if (options.token === undefined && options.refresh === undefined) {
    throw new TypeError('jwt needs a token, a refresh callback, or clientId and clientSecret');
  }
}

/**
 * Holds the JWT: obtains it, renews it ahead of its expiry when the expiry is known, and renews it once after
 * `AUTH_EXPIRED_TOKEN`. Renewals are shared by concurrent requests: a refresh token is single use, so two
 * refreshes in parallel would make the second fail.
 */
export class TokenSource {
  readonly #options: JwtOptions;
  readonly #tokenClient: Client<paths>;
  readonly #baseUrl: string;
  readonly #timers: Timers;
  #token: string | undefined;
  #expiresAt: number | undefined;
  #refreshToken: string | undefined;
  #pending: Promise<string | undefined> | undefined;

  constructor(options: JwtOptions, tokenClient: Client<paths>, baseUrl: string, timers: Timers) {
    validateJwtOptions(options);
    this.#options = options;
    this.#tokenClient = tokenClient;
    this.#baseUrl = baseUrl;
    this.#timers = timers;
    if (!isClientCredentials(options)) this.#token = options.token;
  }

  /** Who the token belongs to, for keying caches. */
  get identity(): string {
    return isClientCredentials(this.#options) ? `client:${this.#options.clientId}` : 'token';
  }

  /** The token to send now. */
  async current(): Promise<string> {
    if (this.#pending) return this.#required(await this.#pending);
    if (this.#token !== undefined && !this.#nearExpiry()) return this.#token;
    return this.#required(await this.renew(this.#token));
  }

  /**
   * A token newer than `stale`: if another request already renewed it, that one; otherwise a new one. Undefined
   * when there is nothing to renew with (a fixed token without a refresh callback).
   */
  renew(stale: string | undefined): Promise<string | undefined> {
    if (this.#pending) return this.#pending;
    if (this.#token !== undefined && this.#token !== stale) return Promise.resolve(this.#token);
    const pending = this.#obtain().finally(() => {
      if (this.#pending === pending) this.#pending = undefined;
    });
    this.#pending = pending;
    return pending;
  }

  #required(token: string | undefined): string {
    if (token === undefined) throw new TypeError('jwt: no token and no way to obtain one');
    return token;
  }

  #nearExpiry(): boolean {
    return this.#expiresAt !== undefined && this.#timers.now() >= this.#expiresAt;
  }

  async #obtain(): Promise<string | undefined> {
    const options = this.#options;
    if (!isClientCredentials(options)) {
      if (!options.refresh) return undefined;
      const token = await options.refresh();
      if (typeof token !== 'string' || token === '')
        throw new TypeError('jwt.refresh must resolve to a non-empty string');
      this.#token = token;
      return token;
    }
    if (this.#refreshToken !== undefined) {
      const refreshToken = this.#refreshToken;
      // Single use: whatever happens next, this refresh token is spent.
      this.#refreshToken = undefined;
      try {
        return this.#keep(
          await this.#call(
            '/v3/auth/token/refresh',
            { refresh_token: refreshToken },
            JSON.stringify({ refresh_token: REDACTED }),
          ),
        );
      } catch (error) {
        // An expired or revoked refresh token: start over with the client credentials.
        if (!(error instanceof ApiError) || error.status !== 401) throw error;
      }
    }
    return this.#keep(
      await this.#call(
        '/v3/auth/token',
        { client_id: options.clientId, client_secret: options.clientSecret },
        JSON.stringify({ client_id: options.clientId, client_secret: REDACTED }),
      ),
    );
  }

  #keep(token: { access_token: string; expires_in: number; refresh_token: string }): string {
    this.#token = token.access_token;
    this.#refreshToken = token.refresh_token;
    // Renew ahead of the expiry by a tenth of the lifetime (at most 30 s), so requests rarely meet an expired token.
    const lifetimeMs = token.expires_in * 1000;
    this.#expiresAt = this.#timers.now() + lifetimeMs - Math.min(30_000, lifetimeMs / 10);
    return token.access_token;
  }

  async #call(
    path: '/v3/auth/token' | '/v3/auth/token/refresh',
    body: { client_id: string; client_secret: string } | { refresh_token: string },
    redactedBody: string,
  ) {
    const requestedAt = new Date(this.#timers.now());
    // The token operations are typed by the generated paths, so a change of their shape breaks this call.
    const result =
      path === '/v3/auth/token'
        ? await this.#tokenClient.POST(path, { body: body as { client_id: string; client_secret: string } })
        : await this.#tokenClient.POST(path, { body: body as { refresh_token: string } });
    if (result.data) return result.data.data;
    throw await toApiError(
      result.response,
      {
        method: 'POST',
        url: `${this.#baseUrl.replace(/\/+$/, '')}${path}`,
        requestedAt,
        path,
        // Never put a secret into an error that may end up in a log or a report.
        body: redactedBody,
      },
      { body: result.error },
    );
  }
}

export interface AuthConfig {
  apiKey: string | undefined;
  tokens: TokenSource | undefined;
}

/** The credential a request will carry, or a CredentialError when the client has none that the operation takes. */
export function chooseCredential(config: AuthConfig, method: string, schemaPath: string): CredentialKind | 'none' {
  const accepted = credentialsFor(method, schemaPath);
  if (accepted.length === 0) return 'none';
  // Where either is accepted (the manager area) the API key goes first: it is what the service serves such a
  // request with when both arrive (spec/DECISIONS.md G22). A client without a key sends the JWT, which is unmetered.
  if (accepted.includes('apiKey') && config.apiKey !== undefined) return 'apiKey';
  if (accepted.includes('jwt') && config.tokens !== undefined) return 'jwt';
  const what =
    accepted.length === 1 && accepted[0] === 'jwt'
      ? 'takes a JWT only (no API key is accepted there)'
      : accepted.length === 1
        ? 'takes an API key only'
        : 'takes an API key or a JWT';
  const jwt = '`jwt: { clientId, clientSecret }` or `jwt: { token, refresh }`';
  const fix = !accepted.includes('jwt')
    ? 'pass `apiKey` to createClient'
    : accepted.includes('apiKey')
      ? `pass \`apiKey\`, or ${jwt}, to createClient`
      : `pass ${jwt} to createClient`;
  throw new CredentialError(
    method.toUpperCase(),
    schemaPath,
    accepted,
    `${method.toUpperCase()} ${schemaPath} ${what}, and this client has none: ${fix}. Nothing was sent.`,
  );
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** A stable name of the credential a request carries, without the secret itself: cache entries are keyed by it. */
export async function credentialFingerprint(config: AuthConfig, kind: CredentialKind | 'none'): Promise<string> {
  if (kind === 'apiKey') return `key:${(await sha256Hex(config.apiKey!)).slice(0, 32)}`;
  if (kind === 'jwt') return `jwt:${config.tokens!.identity}`;
  return 'public';
}

async function errorCode(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } };
    return typeof body?.error?.code === 'string' ? body.error.code : undefined;
  } catch {
    return undefined;
  }
}

/** After a 401: when its code is `AUTH_EXPIRED_TOKEN`, renews the JWT and sends the request once more. */
async function renewOnce(
  sent: { retry: Request; token: string },
  response: Response,
  fetch: (request: Request) => Promise<Response>,
  renew: (token: string) => Promise<string | undefined>,
): Promise<Response | undefined> {
  if ((await errorCode(response)) !== EXPIRED) return undefined;
  const token = await renew(sent.token);
  if (token === undefined) return undefined;
  await response.body?.cancel().catch(() => undefined);
  sent.retry.headers.set('Authorization', `Bearer ${token}`);
  // Once: the response of this retry goes back as it is, even if it is another 401.
  return fetch(sent.retry);
}

/**
 * Puts the credential on each request, as the contract's `security` of the operation says: the API key in its
 * header, or the JWT as a bearer token (the payment-deposit area takes nothing else). A request the client has no
 * credential for fails here, before anything is sent. A 401 `AUTH_EXPIRED_TOKEN` renews the JWT once and sends the
 * request once more.
 */
export function authMiddleware(config: AuthConfig): Middleware {
  const bearerRequests = new Map<string, { retry: Request; token: string }>();
  return {
    // The hooks return a promise only when they have something to wait for: most calls carry an API key and get a
    // 200, and a promise per hook per call is part of the per-call cost `pnpm bench` measures.
    onRequest({ request, schemaPath, id }) {
      const kind = chooseCredential(config, request.method, schemaPath);
      if (kind === 'apiKey') request.headers.set(apiKeyHeader, config.apiKey!);
      if (kind !== 'jwt') return undefined;
      return config.tokens!.current().then((token) => {
        request.headers.set('Authorization', `Bearer ${token}`);
        request.headers.delete(apiKeyHeader);
        bearerRequests.set(id, { retry: request.clone(), token });
        return undefined;
      });
    },
    onResponse({ response, id, options }) {
      const sent = bearerRequests.get(id);
      if (!sent) return undefined;
      bearerRequests.delete(id);
      if (response.status !== 401) return undefined;
      return renewOnce(sent, response, options.fetch, (token) => config.tokens!.renew(token));
    },
    onError({ id }) {
      bearerRequests.delete(id);
      return undefined;
    },
  };
}
