import { errors, jwtVerify, SignJWT } from 'jose';

/** The JWT audience: the payment-deposit area is the only one that accepts a JWT. */
export const JWT_AUDIENCE = 'pay';
export const JWT_ISSUER = 'cls-reference';

export type VerifyOutcome = { kind: 'ok'; accountId: string } | { kind: 'expired' } | { kind: 'invalid' };

/** HS256 JWTs following RFC 8725: one algorithm, explicit `typ`, audience, issuer, `sub`, `iat` and `exp`. */
export class JwtIssuer {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async sign(accountId: string, now: Date): Promise<{ token: string; expiresIn: number }> {
    const iat = Math.floor(now.getTime() / 1000);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(accountId)
      .setAudience(JWT_AUDIENCE)
      .setIssuer(JWT_ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .sign(this.key);
    return { token, expiresIn: this.ttlSeconds };
  }

  async verify(token: string, now: Date): Promise<VerifyOutcome> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        typ: 'JWT',
        audience: JWT_AUDIENCE,
        issuer: JWT_ISSUER,
        requiredClaims: ['sub', 'iat', 'exp'],
        currentDate: now,
      });
      if (typeof payload.sub !== 'string' || payload.sub === '') return { kind: 'invalid' };
      return { kind: 'ok', accountId: payload.sub };
    } catch (err) {
      // Only a token that is otherwise valid is reported as expired: jose checks the signature first.
      if (err instanceof errors.JWTExpired) return { kind: 'expired' };
      return { kind: 'invalid' };
    }
  }
}
