// The domain half of the reference server: every operation of the contract except the two token operations,
// on a storage interface (`DomainStore`) with SQLite or PostgreSQL behind it (store/storage.ts).

import {
  type ContractModel,
  contractModel,
  type OpenApiDocument,
  loadDereferencedSpec,
  ServiceTime,
} from '@cls-api/spec';
import type { Owner } from '../environment.js';
import { assertKnownValues, type DomainHandlers, mcpToolsOf } from './vocabulary.js';
import { depositHandlers } from './deposits.js';
import { mcpHandlers } from './mcp.js';
import { orderHandlers, orderLifecycle } from './orders.js';
import { productHandlers } from './products.js';
import { returnHandlers } from './returns.js';
import { type DemoSummary, seedDemo } from './seed.js';
import type { DomainStore, RecordCounts } from '../store/interface.js';
import { videoHandlers } from './videos.js';
import type { Domain as DomainParts } from './views.js';

export type { DomainHandler, DomainHandlers, DomainOperationId } from './vocabulary.js';
export { ORDER_STATUS, mcpToolsOf, paginationOf } from './vocabulary.js';
export type { DemoAccountSummary, DemoSummary } from './seed.js';
export type * from '../store/interface.js';

export interface DomainOptions {
  /** The service time zone (IANA name), for every shown time, date filter and the return window. */
  timeZone: string;
  /**
   * The dereferenced contract (`loadDereferencedSpec()`, the default). The MCP tools and a few limits are read
   * from it; tests pass an edited copy.
   */
  spec?: OpenApiDocument;
  /** Where camera videos are served; `video_url` is this plus the video id. */
  videoBaseUrl?: string;
}

export interface Domain {
  handlers: DomainHandlers;
  /**
   * Loads the demo data set into owners (an account in an environment) that have no data yet: every environment of
   * the first account gets a rich set, every environment of each further account a small set.
   */
  seedDemo(input: { owners: Owner[]; now?: Date }): Promise<DemoSummary>;
  /**
   * Marks an order shipped (status 30) with a new numeric invoice number, as the warehouse does when it hands the
   * parcel to the carrier; its packing video becomes visible in the camera area. `accountId` null finds the order
   * across all sellers (the operator's CLI); the order keeps its environment.
   */
  shipOrder(accountId: string | null, orderNo: string, now: Date): Promise<{ order_no: string; invoice_no: string }>;
  /**
   * The sandbox's reset (spec/sandbox/openapi.yaml, `POST /sandbox/reset`): removes every record of the owner's
   * test data in one transaction, then loads the named seed at `now` (the account's test clock), through the same
   * handlers as requests. Nothing of another owner is touched; live data is refused.
   */
  resetSandbox(input: { owner: Owner; seed?: SandboxSeed; now: Date }): Promise<SandboxResetResult>;
}

/** The seeds a reset can load (`SandboxSeed` of the sandbox document): `demo`, the data set of `seedDemo`. */
export type SandboxSeed = 'demo';

export interface SandboxResetResult {
  removed: RecordCounts;
  seed?: SandboxSeed;
  loaded?: RecordCounts;
}

const DEFAULT_VIDEO_BASE_URL = 'https://video.example.com/v/';

/** `maxItems` of the `data` array of an operation's success response. */
function dataMaxItems(model: ContractModel, operationId: string): number {
  const schema = model.operation(operationId).responses['200']?.schema as
    | { properties?: { data?: { maxItems?: unknown } } }
    | undefined;
  const max = schema?.properties?.data?.maxItems;
  if (typeof max !== 'number') throw new Error(`the contract gives no maxItems for the data of ${operationId}`);
  return max;
}

/** What every part of the domain shares: the store, the service time and the contract's limits. */
export function domainParts(store: DomainStore, options: DomainOptions, model: ContractModel): DomainParts {
  const base = options.videoBaseUrl ?? DEFAULT_VIDEO_BASE_URL;
  return {
    store,
    time: new ServiceTime(options.timeZone),
    videoBaseUrl: base.endsWith('/') ? base : `${base}/`,
    videosPerInvoice: dataMaxItems(model, 'listInvoiceVideos'),
    returnWithdrawalDeadline: model.limits.returnWithdrawalDeadline,
    isShipped: (code) => model.isShipped(code),
  };
}

/** The domain on a `DomainStore` of either engine. */
export function createDomain(store: DomainStore, options: DomainOptions): Domain {
  const spec = options.spec ?? loadDereferencedSpec();
  const model = contractModel(spec);
  assertKnownValues(model);
  const parts = domainParts(store, options, model);
  const wrapped = {
    ...orderHandlers(parts),
    ...productHandlers(parts),
    ...returnHandlers(parts),
    ...depositHandlers(parts),
    ...videoHandlers(parts),
  };
  const handlers: DomainHandlers = {
    ...wrapped,
    ...mcpHandlers(mcpToolsOf(spec), wrapped, model.validator({ openValues: true })),
  };
  const lifecycle = orderLifecycle(parts);
  return {
    handlers,
    seedDemo: ({ owners, now }) => seedDemo(parts, handlers, lifecycle, owners, now ?? new Date()),
    shipOrder: (accountId, orderNo, now) => lifecycle.ship(accountId, orderNo, now),
    async resetSandbox({ owner, seed, now }) {
      // The helpers answer test credentials only (the sandbox plugin); live data is never the sandbox's to remove.
      if (owner.environment !== 'test') throw new Error('the sandbox resets test data only');
      const removed = await store.transaction((tx) => tx.removeRecords(owner));
      if (seed === undefined) return { removed };
      await seedDemo(parts, handlers, lifecycle, [owner], now);
      return { removed, seed, loaded: await store.countRecords(owner) };
    },
  };
}
