/** Areas of the API: the second path segment (`/v3/wms/…` is `wms`). */
export type Area = 'wms' | 'manager' | 'pay' | 'cam' | 'mcp' | 'auth';

/** Areas an API key can be issued for (no key is issued for `pay`; `mcp` and `auth` are not key areas). */
export type KeyArea = 'wms' | 'manager' | 'cam';

/** The seam between the framework (auth, limits, envelope) and the domain handlers. */
export interface HandlerContext {
  /** The seller, taken from the credential; empty on the public token operations. */
  accountId: string;
  /** Area of the operation being served. */
  area: Area;
  /** Area of the API key the caller used; null for a JWT or a public operation. */
  keyArea: KeyArea | null;
  /** The request time, from the server's (injectable) clock. */
  now: Date;
  log: {
    info(obj: object, msg?: string): void;
    error(obj: object, msg?: string): void;
  };
}
