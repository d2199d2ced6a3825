// What the server reads from the sandbox document (`@cls-api/spec`'s `loadSandboxSpec`, spec/sandbox/openapi.yaml):
// its operations, the forced-outcome headers and the one validator over it.
import {
  documentValidator,
  loadSandboxSpec,
  type OpenApiDocument,
  type OperationInfo,
  operations,
  type SandboxOutcomeFacts,
  type SchemaValidator,
  sandboxClockLastTime,
  sandboxOutcomes,
} from '@cls-api/spec';

export interface SandboxFacts {
  doc: OpenApiDocument;
  operations: ReadonlyMap<string, OperationInfo>;
  outcomes: SandboxOutcomeFacts;
  /** The last time the test clock shows (`x-last-time`). */
  clockLastTime: string;
  /** Request bodies and parameters (parameters coerced from text, as the contract's routes do). */
  validators: { parameters: SchemaValidator; body: SchemaValidator };
}

export function readSandbox(doc: OpenApiDocument = loadSandboxSpec()): SandboxFacts {
  return {
    doc,
    operations: new Map(operations(doc).map((op) => [op.operationId, op])),
    outcomes: sandboxOutcomes(doc),
    clockLastTime: sandboxClockLastTime(doc),
    validators: { parameters: documentValidator(doc, { coerceTypes: true }), body: documentValidator(doc) },
  };
}
