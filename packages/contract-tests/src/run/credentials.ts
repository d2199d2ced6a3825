// The run's credentials from the options: the keys of both sellers, the secrets the reports must never show, the
// environment they reach, and the checks that turn a missing or ill-shaped credential into a usage error.
import type { Contract } from '../contract/contract.js';
import { keyCredentials, Redactor, UsageError, type ApiKeyCredential } from '../plan/credentials.js';
import { runEnvironment } from '../plan/environment.js';
import type { RunOptions } from '../plan/run-options.js';

/**
 * No credential at all: on a fork's pull request, where CI secrets are empty, a run would otherwise skip every case
 * that needs one and pass. A smoke run without credentials is asked for by name.
 */
export const NO_CREDENTIAL =
  'no credential given: set CLS_API_KEYS (or CLS_API_KEY_WMS, CLS_API_KEY_MANAGER, CLS_API_KEY_CAM), CLS_OTHER_API_KEYS, and CLS_CLIENT_ID with CLS_CLIENT_SECRET (or pass --api-key, --client-id, --client-secret). Empty secrets are what a pull request from a fork gets. For a run without any credential, pass --no-credentials';

export interface RunCredentials {
  redactor: Redactor;
  keys: ApiKeyCredential[];
  otherKeys: ApiKeyCredential[];
  environment: ReturnType<typeof runEnvironment>;
}

export function runCredentials(options: RunOptions, contract: Contract): RunCredentials {
  const redactor = new Redactor();
  const keys = keyCredentials(options.apiKeys ?? [], 'primary');
  const otherKeys = keyCredentials(options.otherApiKeys ?? [], 'other');
  for (const k of [...keys, ...otherKeys]) redactor.add(k.key, k.ref);
  redactor.add(options.clientSecret, 'CLS_CLIENT_SECRET');
  redactor.add(options.clientId, 'CLS_CLIENT_ID');
  redactor.add(options.otherClientSecret, 'CLS_OTHER_CLIENT_SECRET');
  redactor.add(options.otherClientId, 'CLS_OTHER_CLIENT_ID');
  redactor.add(options.expiredToken, 'CLS_EXPIRED_TOKEN');
  const credentialFree = keys.length === 0 && otherKeys.length === 0 && !options.clientId;
  if (credentialFree && !options.noCredentials && !options.examplesOnly && options.target !== 'mock') {
    throw new UsageError(NO_CREDENTIAL);
  }
  // One environment for every credential (environment.ts); a live one is read-only unless --allow-live-writes.
  const environment = runEnvironment(keys, otherKeys, options.clientId, options.allowLiveWrites ?? false);
  if (options.examplesOnly) synthesizeMockKeys(contract, keys, environment.name);
  if (options.clientId && options.clientSecret) {
    const tokenOp = contract.findOperation('createAccessToken');
    const errors = tokenOp?.requestBody?.schema
      ? contract.validate(tokenOp.requestBody.schema, {
          client_id: options.clientId,
          client_secret: options.clientSecret,
        })
      : [];
    if (errors.length > 0)
      throw new UsageError(`--client-id/--client-secret do not fit the token request: ${errors.join('; ')}`);
  }
  return { redactor, keys, otherKeys, environment };
}

/** A mock checks only that a credential is present: stand-in keys of every API-key area, no secret in them. */
function synthesizeMockKeys(contract: Contract, keys: ApiKeyCredential[], environment: string | undefined): void {
  const areas = new Set(
    contract.operations
      .filter((o) => o.security.some((s) => contract.securityScheme(s)?.type === 'apiKey'))
      .map((o) => o.area),
  );
  const env = environment ?? [...contract.limits.monthlyQuota.keys()][0] ?? 'test';
  for (const area of areas) {
    if (keys.some((k) => k.area === area)) continue;
    keys.push({
      kind: 'apiKey',
      key: `${area}_${env}_examplesonly0000000000`,
      area,
      env,
      seller: 'primary',
      ref: `CLS_API_KEY_${area.toUpperCase()}`,
    });
  }
}
