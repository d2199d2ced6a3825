// The reference sandbox's helpers as the kit reads them: from their own document (spec/sandbox/openapi.yaml,
// DECISIONS.md G31), never from the contract, which keeps only the service's paths. The kit uses them when the server
// under test offers them: the test clock reaches RETURN_CANCEL_EXPIRED, the reset leaves no record of the run.
import {
  documentValidator,
  loadSandboxSpec,
  operations,
  type JsonSchema,
  type OpenApiDocument,
  type OperationInfo,
  type SchemaValidator,
} from '@cls-api/spec';

/** The helpers a run uses, by the operationIds of the sandbox document. */
const HELPERS = {
  readClock: 'getSandboxClock',
  setClock: 'setSandboxClock',
  realTime: 'resetSandboxClock',
  reset: 'resetSandbox',
} as const;

export type SandboxHelper = keyof typeof HELPERS;

export class SandboxDocument {
  readonly doc: OpenApiDocument;
  private readonly byHelper: Record<SandboxHelper, OperationInfo>;
  private readonly validator: SchemaValidator;
  /** Whether a helper's answers declare the monthly quota's headers: the document says whether helpers are metered. */
  private readonly meteredOps: ReadonlySet<string>;

  constructor(quotaRemainingHeader: string, doc: OpenApiDocument = loadSandboxSpec()) {
    this.doc = doc;
    const ops = operations(doc);
    const find = (id: string) => {
      const op = ops.find((o) => o.operationId === id);
      if (!op) throw new Error(`the sandbox document has no operation ${id}`);
      return op;
    };
    this.byHelper = {
      readClock: find(HELPERS.readClock),
      setClock: find(HELPERS.setClock),
      realTime: find(HELPERS.realTime),
      reset: find(HELPERS.reset),
    };
    this.validator = documentValidator(doc);
    const remaining = quotaRemainingHeader.toLowerCase();
    this.meteredOps = new Set(
      ops
        .filter((op) =>
          Object.values(op.responses).some((r) => Object.keys(r.headers).some((h) => h.toLowerCase() === remaining)),
        )
        .map((op) => op.operationId),
    );
  }

  operation(helper: SandboxHelper): OperationInfo {
    return this.byHelper[helper];
  }

  /** Whether the service counts a call of this helper against the monthly quota (its answers carry the quota headers). */
  metered(helper: SandboxHelper): boolean {
    return this.meteredOps.has(this.byHelper[helper].operationId);
  }

  /** What is wrong with a success answer of a helper, against the document: [] when it is as documented. */
  successErrors(helper: SandboxHelper, status: number, body: unknown): string[] {
    const op = this.byHelper[helper];
    const success = Object.keys(op.responses).find((s) => /^2\d\d$/.test(s));
    if (String(status) !== success) return [`HTTP ${status}, not the documented ${success}`];
    const schema = op.responses[success]?.schema as JsonSchema | undefined;
    if (!schema) return [];
    return this.validator.errors(schema, body).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`.trim());
  }
}
