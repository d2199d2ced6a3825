// Which credential a case's request goes with: the key of the operation's area, the JWT where it is as good and
// spends no quota, on the MCP area the key of the tool's area; a missing one is a skip that names the flag.
import type { OperationInfo } from '@cls-api/spec';
import type { Contract } from '../../contract/contract.js';
import type { ApiKeyCredential, BearerCredential, Credential, Seller } from '../../plan/credentials.js';
import { Skip } from '../http.js';

/** The credentials a run was given. */
export interface CredentialsEnv {
  contract: Contract;
  keys: ApiKeyCredential[];
  otherKeys: ApiKeyCredential[];
  clientId?: string;
  clientSecret?: string;
  examplesOnly: boolean;
}

export class CredentialChoice {
  constructor(
    private readonly env: CredentialsEnv,
    /** The run's JWT, obtained once through the token operation. */
    private readonly jwt: () => Promise<BearerCredential>,
  ) {}

  private get contract(): Contract {
    return this.env.contract;
  }

  /** A key of the area for the given seller, or a skip saying which key is missing. */
  key(area: string, seller: Seller = 'primary'): ApiKeyCredential {
    const pool = seller === 'primary' ? this.env.keys : this.env.otherKeys;
    const found = pool.find((k) => k.area === area);
    if (!found) {
      const flag = seller === 'primary' ? '--api-key' : '--other-api-key';
      throw new Skip(
        `no ${area} API key${seller === 'other' ? ' of another seller' : ''}: pass ${flag} ${area}_test_…`,
      );
    }
    return found;
  }

  hasKey(area: string, seller: Seller = 'primary'): boolean {
    return (seller === 'primary' ? this.env.keys : this.env.otherKeys).some((k) => k.area === area);
  }

  /**
   * The credential an operation's security asks for: a key of an area its API key schemes take (`x-key-area`), its
   * own area's first; where several areas' keys are taken (the MCP area) the key of the area of the tool named in the
   * path, else any of them; the JWT for bearer.
   */
  async credentialFor(
    op: OperationInfo,
    seller: Seller = 'primary',
    path: Record<string, string | number> = {},
  ): Promise<Credential> {
    if (op.security.length === 0) return { kind: 'none' };
    // Where a JWT is as good as a key (the manager area), the JWT: it spends no monthly quota. The key is still sent
    // there by the cases about it (workflows: with_<API key scheme>, seller isolation).
    if (
      seller === 'primary' &&
      this.env.clientId &&
      this.env.clientSecret &&
      !this.env.examplesOnly &&
      op.security.some((s) => this.isBearerScheme(s)) &&
      op.security.some((s) => this.isApiKeyScheme(s))
    ) {
      return this.jwt();
    }
    if (op.security.some((s) => this.isApiKeyScheme(s))) {
      const pool = seller === 'primary' ? this.env.keys : this.env.otherKeys;
      // The areas whose keys the operation's schemes take (`x-key-area`); a contract without them, its own area.
      const accepted = this.contract.keyAreasOf(op);
      const areas = accepted.length > 0 ? accepted : [op.area];
      const own = pool.find((k) => k.area === op.area && areas.includes(k.area));
      if (own) return own;
      if (areas.length > 1) {
        // A key of any of several areas (the MCP area): the key of the area of the tool named in the path.
        const tool = this.contract.operations.find(
          (o) => o.mcpTool !== undefined && Object.values(path).includes(o.mcpTool),
        );
        const forTool = tool ? pool.find((k) => k.area === tool.area && areas.includes(k.area)) : undefined;
        if (forTool) return forTool;
        const any = pool.find((k) => areas.includes(k.area));
        if (any) return any;
      }
      return this.key(areas.includes(op.area) ? op.area : areas[0]!, seller);
    }
    if (op.security.some((s) => this.isBearerScheme(s))) return this.jwt();
    throw new Skip(`${op.operationId}: no credential of scheme ${op.security.join(', ')}`);
  }

  /** The area of the MCP tool list: the operations there wrap the other areas and take a key of any of them. */
  mcpArea(): string | undefined {
    return this.contract.findOperation('listMcpTools')?.area;
  }

  isApiKeyScheme(name: string): boolean {
    return this.contract.isApiKeyScheme(name);
  }

  isBearerScheme(name: string): boolean {
    return this.contract.isBearerScheme(name);
  }

  /** The header name the API key goes in, from the scheme. */
  apiKeyHeader(op: OperationInfo): string {
    for (const name of op.security) {
      const scheme = this.contract.securityScheme(name);
      if (scheme?.type === 'apiKey' && typeof scheme.name === 'string') return scheme.name;
    }
    for (const scheme of Object.values(this.contract.doc.components?.securitySchemes ?? {})) {
      if (scheme.type === 'apiKey' && typeof scheme.name === 'string') return scheme.name;
    }
    throw new Error('the contract has no apiKey security scheme');
  }
}
