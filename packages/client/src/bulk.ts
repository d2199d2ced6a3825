import { bulkOperations } from '../generated/contract.js';
import type { paths } from '../generated/openapi.js';
import type { ErrorCode } from './contract.js';
import { ApiError, CredentialError, apiErrorOf } from './errors.js';
import type { JsonContent, SuccessBody } from './types.js';

type BulkOps = typeof bulkOperations;

/** The operations with a bulk helper: every operation of the contract that takes rows and answers per row. */
export type BulkOperationId = keyof BulkOps;

type BulkPath<K extends BulkOperationId> = BulkOps[K]['path'] & keyof paths;
type BulkOperation<K extends BulkOperationId> = paths[BulkPath<K>] extends { post: infer Op } ? Op : never;
type BulkBody<K extends BulkOperationId> = BulkOperation<K> extends { requestBody: infer B } ? JsonContent<B> : never;

/** One row of a bulk operation's body (an `OrderRow`, an `OptionRow`). */
export type BulkRow<K extends BulkOperationId> =
  BulkBody<K> extends { [F in BulkOps[K]['rowsField']]: readonly (infer R)[] } ? R : never;

/** The `data` of a bulk response: the counts and the result rows. */
export type BulkResult<K extends BulkOperationId> = SuccessBody<BulkOperation<K>> extends { data: infer D } ? D : never;

type PathParams<K extends BulkOperationId> =
  BulkOperation<K> extends { parameters: { path: infer P extends object } }
    ? { params: { path: P } }
    : { params?: never };

export interface BulkProgress<K extends BulkOperationId> {
  operationId: K;
  /** The chunk just accepted, 0-based. */
  chunkIndex: number;
  chunkCount: number;
  /** Rows sent so far, this chunk included. */
  rowsSent: number;
  rowsTotal: number;
  /** Rows that succeeded so far (the sum of the success counts). */
  succeeded: number;
  /** Rows that failed so far (the sum of `failed_count`). */
  failed: number;
  /** This chunk's own response data. */
  chunkResult: BulkResult<K>;
}

export type BulkOptions<K extends BulkOperationId> = {
  /** Called after each accepted chunk. */
  onProgress?: (progress: BulkProgress<K>) => void;
  /** Rows per request; at most the contract's limit (`maxItems`, 1,000), which is the default. */
  chunkSize?: number;
  /** Stops the job; the chunk in flight may or may not be stored. */
  signal?: AbortSignal;
} & PathParams<K>;

export type BulkFunction<K extends BulkOperationId> = (
  rows: readonly BulkRow<K>[],
  // biome-ignore lint/complexity/noBannedTypes: `{} extends T` is how a type asks whether every property of T is optional
  ...options: {} extends BulkOptions<K> ? [options?: BulkOptions<K>] : [options: BulkOptions<K>]
) => Promise<BulkResult<K>>;

/** `client.bulk.registerOrders(rows)`, `client.bulk.registerDraftOrders(rows)`, `client.bulk.addProductOptions(rows, { params })`. */
export type BulkHelpers = { [K in BulkOperationId]: BulkFunction<K> };

export interface BulkChunkErrorInit {
  operationId: BulkOperationId;
  chunkIndex: number;
  chunkCount: number;
  rowStart: number;
  rowEnd: number;
  chunkWritten: false | 'unknown';
  completed: unknown;
  cause: unknown;
}

/**
 * A bulk job stopped at a chunk. The chunks before it were accepted, and their merged result is `completed`; no
 * chunk after it was sent. `chunkWritten` says whether this chunk may have been stored: `false` when the service
 * refused it (a 4xx: a format error in any row rejects the whole request, so nothing of the chunk was registered),
 * `'unknown'` after a 5xx or a lost connection (it is never sent again automatically).
 */
export class BulkChunkError extends Error {
  override name = 'BulkChunkError';
  readonly operationId: BulkOperationId;
  /** The chunk that failed, 0-based. */
  readonly chunkIndex: number;
  readonly chunkCount: number;
  /** Index of the chunk's first row in the rows passed in. */
  readonly rowStart: number;
  /** Index after the chunk's last row. */
  readonly rowEnd: number;
  readonly chunkWritten: false | 'unknown';
  /** The merged result of the chunks accepted before this one. */
  readonly completed: unknown;
  /** The HTTP status of the failed chunk, when it got a response. */
  readonly status: number | undefined;
  /** The error code of the failed chunk, when it got the API's error envelope. */
  readonly code: ErrorCode | undefined;
  /** The service's `X-Request-Id` of the failed chunk's response, when it sent one. */
  readonly requestId: string | undefined;

  constructor(init: BulkChunkErrorInit) {
    const api = init.cause instanceof ApiError ? init.cause : undefined;
    const why = api
      ? `${api.status}${api.code ? ` ${api.code}` : ''}: ${api.message}`
      : init.cause instanceof Error
        ? `${init.cause.name}: ${init.cause.message}`
        : String(init.cause);
    const written =
      init.chunkWritten === false
        ? 'Nothing of this chunk was registered.'
        : 'Whether this chunk was stored is unknown; it was not sent again.';
    const before =
      init.chunkIndex === 0
        ? 'No earlier chunk was sent.'
        : `Chunks 1-${init.chunkIndex} (rows ${0}-${init.rowStart - 1}) were accepted; their merged result is in .completed.`;
    const rowNote = api
      ? ` Row numbers in the service's message count from this chunk's first row, rows[${init.rowStart}].`
      : '';
    // The service's messages are sentences that end with a full stop already.
    const sentence =
      (/[.!?]$/.test(why) ? why : `${why}.`) + (api?.requestId === undefined ? '' : ` Request id ${api.requestId}.`);
    super(
      `${init.operationId} stopped at chunk ${init.chunkIndex + 1} of ${init.chunkCount} ` +
        `(rows ${init.rowStart}-${init.rowEnd - 1}): ${sentence} ${written} ${before}${rowNote}`,
      { cause: init.cause },
    );
    this.operationId = init.operationId;
    this.chunkIndex = init.chunkIndex;
    this.chunkCount = init.chunkCount;
    this.rowStart = init.rowStart;
    this.rowEnd = init.rowEnd;
    this.chunkWritten = init.chunkWritten;
    this.completed = init.completed;
    this.status = api?.status;
    this.code = api?.code;
    this.requestId = api?.requestId;
  }
}

type Post = (
  path: string,
  init: Record<string, unknown>,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

type Merged = Record<string, number | unknown[]>;

async function runBulk(
  post: Post,
  operationId: BulkOperationId,
  rows: readonly unknown[],
  options: {
    onProgress?: (p: BulkProgress<BulkOperationId>) => void;
    chunkSize?: number;
    signal?: AbortSignal;
    params?: unknown;
  },
): Promise<Merged> {
  const op = bulkOperations[operationId];
  if (!Array.isArray(rows)) throw new TypeError(`${operationId}: rows must be an array`);
  const size = options.chunkSize ?? op.maxRows;
  if (!Number.isInteger(size) || size < 1 || size > op.maxRows) {
    throw new TypeError(
      `${operationId}: chunkSize must be an integer from 1 to ${op.maxRows} (the contract's row limit)`,
    );
  }
  const merged: Merged = { [op.successCountField]: 0, [op.failedCountField]: 0, [op.resultsField]: [] };
  const chunkCount = Math.ceil(rows.length / size);
  for (let chunkIndex = 0; chunkIndex < chunkCount; chunkIndex++) {
    const rowStart = chunkIndex * size;
    const rowEnd = Math.min(rowStart + size, rows.length);
    const stop = (cause: unknown, chunkWritten: false | 'unknown') =>
      new BulkChunkError({
        operationId,
        chunkIndex,
        chunkCount,
        rowStart,
        rowEnd,
        chunkWritten,
        completed: merged,
        cause,
      });
    if (options.signal?.aborted) throw stop(options.signal.reason, false);

    let result: Awaited<ReturnType<Post>>;
    try {
      const init: Record<string, unknown> = { body: { [op.rowsField]: rows.slice(rowStart, rowEnd) } };
      if (options.params !== undefined) init.params = options.params;
      if (options.signal !== undefined) init.signal = options.signal;
      result = await post(op.path, init);
    } catch (error) {
      const refused = (error instanceof ApiError && error.status < 500) || error instanceof CredentialError;
      throw stop(error, refused ? false : 'unknown');
    }
    if (result.error !== undefined || result.data === undefined) {
      const error = apiErrorOf(result.response) ?? new Error(`HTTP ${result.response.status}`);
      throw stop(error, result.response.status < 500 ? false : 'unknown');
    }
    const data = (result.data as { data: Record<string, unknown> }).data;
    merged[op.successCountField] = (merged[op.successCountField] as number) + Number(data[op.successCountField] ?? 0);
    merged[op.failedCountField] = (merged[op.failedCountField] as number) + Number(data[op.failedCountField] ?? 0);
    (merged[op.resultsField] as unknown[]).push(...((data[op.resultsField] as unknown[] | undefined) ?? []));
    options.onProgress?.({
      operationId,
      chunkIndex,
      chunkCount,
      rowsSent: rowEnd,
      rowsTotal: rows.length,
      succeeded: merged[op.successCountField] as number,
      failed: merged[op.failedCountField] as number,
      chunkResult: data as never,
    });
  }
  return merged;
}

/**
 * The bulk helpers, one per bulk operation of the contract: any number of rows, sent one chunk of at most 1,000 rows
 * at a time (in order, so the merged result rows line up with the rows passed in), with the counts summed.
 */
export function createBulkHelpers(post: Post): BulkHelpers {
  const helpers: Record<string, unknown> = {};
  for (const operationId of Object.keys(bulkOperations) as BulkOperationId[]) {
    helpers[operationId] = (rows: readonly unknown[], options: Parameters<typeof runBulk>[3] = {}) =>
      runBulk(post, operationId, rows, options);
  }
  return helpers as BulkHelpers;
}
