// The codes of the error catalogue that need the server driven somewhere no other case goes: an option that does not
// exist on a product that does (OPTION_NOT_FOUND), an order raised beyond its product's stock
// (INVENTORY_INSUFFICIENT), a return withdrawn right after its registration (RETURN_CANCEL_EXPIRED only past the
// deadline), and the deposit lookup that matches nothing (HTTP 200 with an empty array, not 404, as
// spec/paths/v3_pay_deposits.yaml says). Codes are named here because the rules name them; their statuses come from
// the catalogue. The codes a test key cannot reach are listed with the reason (`unreachableReason`), and the run's report
// lists every code of the catalogue as reached or not (report.ts, `errorCodes`).
// Each code has its file in codes/; the order below is the run's (INVENTORY_INSUFFICIENT orders the product the kit
// orders from, and raises the order beyond all the stock that product was created with).
import type { CaseDef, RunEnv } from '../run/case.js';
import type { Contract } from '../contract/contract.js';
import { inventoryInsufficientCases } from './codes/inventory-insufficient.js';
import { noMatchIsEmptyCases } from './codes/no-match-is-empty.js';
import { optionNotFoundCases } from './codes/option-not-found.js';
import { returnCancelExpiredCases } from './codes/return-cancel-expired.js';

/**
 * Why a test key cannot drive a server to `code`, or undefined when a case of the kit can. `probeLimits`: whether
 * the gateway probes run (they reach the gateway's 429).
 */
export function unreachableReason(
  contract: Contract,
  code: string,
  probeLimits: boolean,
  expiredToken = false,
): string | undefined {
  const deadline = contract.limits.returnWithdrawalDeadline;
  const hhmm = `${String(deadline.hour).padStart(2, '0')}:${String(deadline.minute).padStart(2, '0')}`;
  switch (code) {
    case 'AUTH_EXPIRED_TOKEN':
      return expiredToken
        ? undefined
        : "needs a JWT past its life (the token response's expires_in): set CLS_EXPIRED_TOKEN to one, e.g. the last run's (--save-token FILE; the CI recipes keep it in the CI cache)";
    case 'RETURN_CANCEL_EXPIRED':
      return `needs the service clock past ${hhmm} (${contract.serviceTimeZone}) after a return's registration: the kit cannot move the service clock, nor wait until then (it can on a server that offers the sandbox's test clock, GET /sandbox/clock)`;
    case 'INTERNAL_ERROR':
      return 'a correct server is never driven there: any 5xx the kit meets fails no_server_error';
    case 'RATE_LIMIT_EXCEEDED':
      return probeLimits
        ? undefined
        : 'needs a burst over the gateway limit (--probe-limits) or a used-up monthly quota';
    default:
      return undefined;
  }
}

export function codeCases(env: RunEnv): CaseDef[] {
  return [
    ...optionNotFoundCases(env),
    ...inventoryInsufficientCases(env),
    ...returnCancelExpiredCases(env),
    ...noMatchIsEmptyCases(env),
  ];
}

/** The `exp` claim (seconds) of a JWT, read without checking its signature; undefined when it has none. */
export function tokenExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp : undefined;
  } catch {
    return undefined;
  }
}
