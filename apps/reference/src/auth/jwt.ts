import { errors, jwtVerify, SignJWT } from 'jose';
import { type Environment, isEnvironment } from '../environment.js';

export const JWT_ISSUER = 'cls-reference';

/**
 * How far ahead of the server's clock a token's `iat` may be: the clocks of the machines that share the signing
 * secret differ a little. A token issued further in the future was not issued by this service.
 */
export const CLOCK_SKEW_SECONDS = 60;

export type VerifyOutcome =
  | { kind: 'ok'; accountId: string; environment: Environment }
  | { kind: 'expired' }
  | { kind: 'invalid' };

/**
 * HS256 JWTs following RFC 8725: one algorithm, explicit `typ`, audience, issuer, `sub`, `iat` and `exp`, plus
 * `env`, the environment of the client credentials the token was obtained with (DECISIONS G21).
 */
export class JwtIssuer {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
    /**
     * The areas whose operations accept a JWT, read from the contract (`security` naming `BearerAuth`): `pay`
     * and `manager`. A token names them all in `aud`, and is accepted on an area only when `aud` names it.
     */
    readonly audience: readonly string[],
  ) {
    if (audience.length === 0) throw new Error('a JWT needs at least one audience');
    this.key = new TextEncoder().encode(secret);
  }

  async sign(accountId: string, environment: Environment, now: Date): Promise<{ token: string; expiresIn: number }> {
    const iat = Math.floor(now.getTime() / 1000);
    const token = await new SignJWT({ env: environment })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(accountId)
      .setAudience([...this.audience])
      .setIssuer(JWT_ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .sign(this.key);
    return { token, expiresIn: this.ttlSeconds };
  }

  /**
   * Verifies a token for use on `area` (on any of them, given several): a token whose `aud` does not name the area is
   * invalid there.
   */
  async verify(token: string, now: Date, area: string | readonly string[]): Promise<VerifyOutcome> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        typ: 'JWT',
        audience: typeof area === 'string' ? area : [...area],
        issuer: JWT_ISSUER,
        requiredClaims: ['sub', 'iat', 'exp', 'env'],
        currentDate: now,
      });
      if (typeof payload.sub !== 'string' || payload.sub === '' || !isEnvironment(payload.env))
        return { kind: 'invalid' };
      // A token this service issued lives exactly the issued TTL from its issue time, which is not in the future.
      // A well-signed token that says otherwise (`exp` in 2200, `iat` tomorrow) was made with a leaked secret or by a
      // misconfigured signer: refused rather than honoured for as long as it claims.
      const nowSeconds = Math.floor(now.getTime() / 1000);
      const { iat, exp } = payload as { iat: number; exp: number };
      if (iat > nowSeconds + CLOCK_SKEW_SECONDS || exp - iat > this.ttlSeconds) return { kind: 'invalid' };
      return { kind: 'ok', accountId: payload.sub, environment: payload.env };
    } catch (err) {
      // Only a token that is otherwise valid is reported as expired: jose checks the signature first.
      if (err instanceof errors.JWTExpired) return { kind: 'expired' };
      return { kind: 'invalid' };
    }
  }
}
