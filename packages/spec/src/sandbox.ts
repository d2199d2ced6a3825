// The reference sandbox's helpers (spec/sandbox/openapi.yaml): its bundle, and what the forced-outcome header of
// that document says, read in one place for the server, the client and the docs.
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deref, type OpenApiDocument, type ParameterObject } from './document.js';
import { shown } from './text.js';

const here = dirname(fileURLToPath(import.meta.url));
const distDir = basename(here) === 'src' ? join(here, '..', 'dist') : here;

/** The bundled sandbox document: the contract's components it uses are copied in, kept as named references. */
export const sandboxJsonPath: string = join(distDir, 'sandbox.json');
/** The same document as `sandboxJsonPath`, as YAML. */
export const sandboxYamlPath: string = join(distDir, 'sandbox.yaml');
/** The sandbox document with every `$ref` replaced by its target, markdown descriptions inlined. */
export const sandboxDereferencedJsonPath: string = join(distDir, 'sandbox.dereferenced.json');

function readDocument(file: string): OpenApiDocument {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`${file} does not exist: build @cls-api/spec first (pnpm --filter @cls-api/spec build)`);
    }
    throw err;
  }
  const doc = JSON.parse(text) as OpenApiDocument;
  // The mark that tells the sandbox's document from the service's (spec/README.md, "x-sandbox").
  if (doc.info['x-sandbox'] !== true) throw new Error(`${file} is not marked as the sandbox's (info.x-sandbox)`);
  return doc;
}

/** The bundled sandbox document (`dist/sandbox.json`), parsed afresh on every call so callers may mutate it. */
export function loadSandboxSpec(): OpenApiDocument {
  return readDocument(sandboxJsonPath);
}

/** The fully dereferenced sandbox document (`dist/sandbox.dereferenced.json`): no `$ref` anywhere. */
export function loadDereferencedSandboxSpec(): OpenApiDocument {
  return readDocument(sandboxDereferencedJsonPath);
}

/** The answers `X-Sandbox-Outcome` can ask for, as the sandbox document lists them. */
export type SandboxOutcome = 'internal_error' | 'quota_exceeded' | 'gateway_throttled' | 'bulk_failed';

export interface SandboxOutcomeFacts {
  /** The request header that names the outcome (`X-Sandbox-Outcome`). */
  outcomeHeader: string;
  /** The request header that lists the rows a forced bulk failure fails (`X-Sandbox-Failed-Rows`). */
  failedRowsHeader: string;
  /** Its syntax, from the document. */
  failedRowsPattern: RegExp;
  /** Each outcome, with the catalogue code of its error body (`x-outcome-codes`); none for `bulk_failed`. */
  outcomes: ReadonlyMap<SandboxOutcome, { code?: string }>;
}

function parameter(doc: OpenApiDocument, name: string): ParameterObject {
  const found = doc.components?.parameters?.[name];
  if (!found) throw new Error(`the sandbox document has no components.parameters.${name}`);
  return deref<ParameterObject>(doc, found);
}

/** What the sandbox document says of forced outcomes: the header names, the outcomes and their error codes. */
export function sandboxOutcomes(doc: OpenApiDocument): SandboxOutcomeFacts {
  const outcome = parameter(doc, 'X-Sandbox-Outcome');
  const failedRows = parameter(doc, 'X-Sandbox-Failed-Rows');
  const values = outcome.schema?.enum;
  const codes = (outcome.schema?.['x-outcome-codes'] ?? {}) as Record<string, string>;
  const pattern = failedRows.schema?.pattern;
  if (!Array.isArray(values) || typeof pattern !== 'string') {
    throw new Error('the sandbox document states no X-Sandbox-Outcome enum or X-Sandbox-Failed-Rows pattern');
  }
  const outcomes = new Map<SandboxOutcome, { code?: string }>();
  for (const value of values as SandboxOutcome[]) {
    const code = codes[value];
    outcomes.set(value, code === undefined ? {} : { code });
  }
  return {
    outcomeHeader: outcome.name,
    failedRowsHeader: failedRows.name,
    failedRowsPattern: new RegExp(pattern, 'u'),
    outcomes,
  };
}

/**
 * The last time the test clock shows (`x-last-time` of the sandbox document's `SandboxClockSet`), as a service
 * time `YYYY-MM-DD HH:MM:SS`. A document without one, or with one in another form, is an error of the document.
 */
export function sandboxClockLastTime(doc: OpenApiDocument): string {
  const last = (doc.components?.schemas?.SandboxClockSet as Record<string, unknown> | undefined)?.['x-last-time'];
  if (typeof last !== 'string' || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(last))
    throw new Error('the sandbox document states no x-last-time on SandboxClockSet, written YYYY-MM-DD HH:MM:SS');
  return last;
}

/**
 * The 400 message for a change of the test clock past its last time: `at` set later, or `advance_seconds` that
 * would move it there. One wording for every server that answers the clock.
 */
export function pastLastTimeMessage(lastTime: string, by: 'at' | 'advance_seconds'): string {
  return `${by === 'at' ? 'at is' : 'advance_seconds moves the clock'} past the last time the test clock can show, ${lastTime}.`;
}

/**
 * The rows a forced bulk failure fails, read from `X-Sandbox-Failed-Rows` as the sandbox document defines it
 * (zero-based row indexes, comma-separated, each once, sent with `X-Sandbox-Outcome: bulk_failed` only), or the
 * message of the 400 that refuses it: one reading for every server that answers the header. `show` writes the
 * refused value into the message (the server's own escaping).
 */
export function failedRowsOf(
  facts: SandboxOutcomeFacts,
  outcome: string | undefined,
  raw: string,
  show: (text: string) => string = (text) => JSON.stringify(text),
): { rows: ReadonlySet<number> } | { refused: string } {
  const { failedRowsHeader, outcomeHeader } = facts;
  if (outcome !== 'bulk_failed')
    return { refused: `${failedRowsHeader} is sent with ${outcomeHeader}: bulk_failed only.` };
  if (!facts.failedRowsPattern.test(raw))
    return { refused: `${failedRowsHeader} must be row indexes from 0, comma-separated, not ${show(raw)}.` };
  const indexes = raw.split(',').map(Number);
  if (new Set(indexes).size !== indexes.length) return { refused: `${failedRowsHeader} names a row twice.` };
  return { rows: new Set(indexes) };
}

/** The message of the 400 when `X-Sandbox-Outcome` names no outcome the sandbox has (the value escaped by `shown`). */
export function unknownOutcomeMessage(facts: SandboxOutcomeFacts, value: string): string {
  return `${facts.outcomeHeader} must be one of ${[...facts.outcomes.keys()].join(', ')}, not ${shown(value)}.`;
}

/**
 * The message of the 400 when an operation does not declare the outcome asked for. `byJwt`: the request's credential
 * is a JWT, which has no monthly quota, so `quota_exceeded` is no outcome of it on any operation.
 */
export function undeclaredOutcomeMessage(
  facts: SandboxOutcomeFacts,
  outcome: SandboxOutcome,
  operationId: string,
  byJwt: boolean,
): string {
  const why = outcome === 'quota_exceeded' && byJwt ? ' called with a JWT, which has no monthly quota' : '';
  return `${facts.outcomeHeader}: ${outcome} is not an outcome of ${operationId}${why}.`;
}

/** The message of the 403 for a live credential where only a test one is taken (`what`: `Forced outcomes`). */
export function liveCredentialMessage(what: 'Forced outcomes' | 'The sandbox helpers'): string {
  return `${what} take a test credential; this one is live.`;
}

/** The rows of a bulk registration's body, as `X-Sandbox-Failed-Rows` counts them: its array; none without one. */
export function bulkRows(body: unknown): unknown[] {
  if (!body || typeof body !== 'object') return [];
  return Object.values(body).find(Array.isArray) ?? [];
}

/** The message of the 400 when `X-Sandbox-Failed-Rows` names a row the request does not have (`sent` rows). */
export function rowBeyondRequest(
  facts: SandboxOutcomeFacts,
  rows: ReadonlySet<number>,
  sent: number,
): string | undefined {
  const beyond = [...rows].find((index) => index >= sent);
  return beyond === undefined
    ? undefined
    : `${facts.failedRowsHeader} names row ${beyond}, but the request has ${sent} rows.`;
}
