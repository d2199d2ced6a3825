// The storage interface of the reference server: what the plugins, the token operations and the domain's handlers
// need from storage, and nothing of how it is kept. `sql-accounts.ts` and `sql-domain.ts` implement both
// interfaces, `AccountStore` and `DomainStore`, on either engine (SQLite or PostgreSQL, store/sql.ts); nothing above
// `store/` knows which.
import type { KeyArea } from '@cls-api/server';
import type { EpochSeconds } from '@cls-api/spec';
import { ENVIRONMENTS, type Environment, type Owner } from '../environment.js';

/** The environment segment of a key or client id (DECISIONS G20, G21). */
export type KeyEnv = Environment;
export const KEY_AREAS: readonly KeyArea[] = ['wms', 'manager', 'cam'];
export const KEY_ENVS: readonly KeyEnv[] = ENVIRONMENTS;

/** `{area}_{env}_{random}`: the random part is base62, so `_` only ever separates the three parts. */
export const API_KEY_SHAPE = /^(wms|manager|cam)_(test|live)_([A-Za-z0-9]{32})$/;

export interface Account {
  account_id: string;
  name: string;
  paid: boolean;
  linked_areas: KeyArea[];
  created_at: number;
}

export interface AccountListing extends Account {
  api_keys: Array<{ area: KeyArea; env: KeyEnv; key_hint: string; created_at: number }>;
}

/** The database's own counters, or Redis's at a URL (shown without its password). */
export type UsageCountersPlace = { kind: 'database' } | { kind: 'redis'; url: string };

export interface ApiKeyIdentity {
  account_id: string;
  area: KeyArea;
  env: KeyEnv;
  /** Whether the account's subscription is paid now (live keys need it on every call, not only at issue). */
  paid: boolean;
}

/** Valid client credentials: the account and the environment they were issued for. */
export interface ClientIdentity {
  account_id: string;
  environment: Environment;
}

export type RefreshOutcome =
  | { kind: 'ok'; account_id: string; client_id: string; family_id: string; environment: Environment }
  | { kind: 'invalid' }
  | { kind: 'expired' };

/** A provisioning request that cannot be done (unknown account, live key without a paid subscription, …). */
export class ProvisioningError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProvisioningError';
  }
}

/**
 * Accounts, credentials and usage counters, asynchronous so that a networked database (PostgreSQL) implements it as
 * well as SQLite; `SqlAccountStore` (store/sql-accounts.ts) is both.
 */
export interface AccountStore {
  countAccounts(): Promise<number>;
  /** Every account, oldest first, with the areas, environments and hints (first characters) of its active keys. */
  listAccounts(): Promise<AccountListing[]>;
  /** Records where the servers on this database keep the monthly counters (each server, as it starts). */
  recordUsageCounters(where: UsageCountersPlace, now: Date): Promise<void>;
  /** Where the servers on this database last said they keep the monthly counters; undefined before any did. */
  usageCountersPlace(): Promise<UsageCountersPlace | undefined>;
  createAccount(input: { name: string; paid: boolean; link: readonly KeyArea[] }, now: Date): Promise<Account>;
  getAccount(accountId: string): Promise<Account | undefined>;
  setPaid(accountId: string, paid: boolean): Promise<Account>;
  linkServiceAccount(accountId: string, area: KeyArea, serviceAccountRef: string, now: Date): Promise<Account>;
  createApiKey(accountId: string, area: KeyArea, env: KeyEnv, now: Date): Promise<{ api_key: string; key_id: string }>;
  findApiKey(apiKey: string): Promise<ApiKeyIdentity | undefined>;
  revokeApiKey(apiKey: string, now: Date): Promise<boolean>;
  /** Client credentials `cli_{env}_{random}` for one environment (live ones need a paid subscription, as live keys do). */
  createClient(
    accountId: string,
    environment: Environment,
    now: Date,
  ): Promise<{ client_id: string; client_secret: string }>;
  /** The account and environment of valid client credentials, else undefined. */
  verifyClient(clientId: string, clientSecret: string): Promise<ClientIdentity | undefined>;
  /** The account and environment of client credentials that are not revoked (no secret: for a refresh). */
  activeClient(clientId: string): Promise<ClientIdentity | undefined>;
  issueRefreshToken(
    input: { accountId: string; clientId: string; familyId?: string; ttlSeconds: number },
    now: Date,
  ): Promise<{ refresh_token: string; family_id: string }>;
  /** Spends a refresh token: it works once. */
  useRefreshToken(refreshToken: string, now: Date): Promise<RefreshOutcome>;
  /**
   * Spends a refresh token and issues the next of its family, in one transaction: either both happen or neither
   * (a client never loses its family to a failure between the two).
   */
  renewRefreshToken(
    refreshToken: string,
    ttlSeconds: number,
    now: Date,
  ): Promise<RefreshOutcome | (Extract<RefreshOutcome, { kind: 'ok' }> & { refresh_token: string })>;
  /**
   * Counts one test-key call if the account is below `limit` this month; atomic across concurrent callers and
   * across processes on one database (one conditional statement, never a read then a write).
   */
  countTestCall(accountId: string, month: string, limit: number): Promise<{ allowed: boolean; calls: number }>;
  /** Gives back one counted test-key call the service then failed to serve (DECISIONS.md G29); never below zero. */
  returnTestCall(accountId: string, month: string): Promise<void>;
  countLiveCall(accountId: string, month: string): Promise<number>;
  /** Adds calls already allowed (counted while the write lock was held elsewhere: `src/plugins/quota.ts`). */
  addUsage(accountId: string, month: string, env: KeyEnv, calls: number): Promise<void>;
  usage(accountId: string, month: string, env: KeyEnv): Promise<number>;
  resetUsage(accountId: string, month: string, env: KeyEnv): Promise<void>;
}

/**
 * Single-use refresh tokens: the account store's own (the database), or the same tokens in Redis when REDIS_URL is
 * set (`src/limits/redis-refresh-tokens.ts`).
 */
export type RefreshTokens = Pick<AccountStore, 'issueRefreshToken' | 'renewRefreshToken'>;

/**
 * The monthly usage counters the quota uses: the account store's own (the database), or the same counters in Redis
 * when REDIS_URL is set (`src/limits/redis-usage.ts`).
 */
export type UsageCounters = Pick<
  AccountStore,
  'countTestCall' | 'returnTestCall' | 'countLiveCall' | 'addUsage' | 'usage' | 'resetUsage'
>;

// ---------------------------------------------------------------------------------------------------------------
// The domain's storage. Handlers depend on these interfaces only; `sqlite-domain.ts` implements them on
// better-sqlite3, and another backend (PostgreSQL) implements the same methods. Every method is asynchronous so a
// networked database fits, and every write happens inside `transaction`, so a bulk request is one unit of work.
//
// Records use the API's field names. Times are epoch seconds (`EpochSeconds` of `@cls-api/spec`); the handlers format them.

export interface SupplierRecord {
  supplier_code: string;
  supplier_name: string;
  updated_at: EpochSeconds;
}

export interface ProductRecord {
  product_code: string;
  product_name: string;
  price: number;
  supplier_code: string | null;
  option_count: number;
  created_at: EpochSeconds;
  updated_at: EpochSeconds;
}

export interface OptionRecord {
  product_code: string;
  option_code: string;
  option_name: string;
  additional_price: number;
  created_at: EpochSeconds;
}

/** Stock of a product itself (`option_code` null) or of one option. */
export interface StockRecord {
  product_code: string;
  option_code: string | null;
  quantity: number;
  updated_at: EpochSeconds;
}

/** The fields a seller submits for an order or a draft (one bulk row). */
export interface OrderFields {
  mall_order_no: string;
  mall_product_name: string;
  product_code: string;
  option_code: string | null;
  quantity: number;
  receiver_name: string;
  receiver_phone: string;
  receiver_address: string;
  memo: string;
}

export interface OrderRecord extends OrderFields {
  order_no: string;
  order_status_code: number;
  invoice_no: string | null;
  registered_at: EpochSeconds;
  updated_at: EpochSeconds;
}

/** What the manager's order list shows of an order. */
export type OrderSummaryRecord = Pick<
  OrderRecord,
  'order_no' | 'mall_product_name' | 'order_status_code' | 'registered_at'
>;

export interface DraftRecord extends OrderFields {
  draft_id: string;
  status: string;
  created_at: EpochSeconds;
}

export interface ReturnRecord {
  return_no: string;
  order_no: string;
  reason: string;
  registered_at: EpochSeconds;
  cancellable_until: EpochSeconds;
  /** Null while the return is requested. */
  withdrawn_at: EpochSeconds | null;
}

export interface DepositRecord {
  deposit_id: string;
  amount: number;
  depositor_name: string;
  deposited_at: EpochSeconds;
}

export interface VideoRecord {
  video_id: string;
  invoice_no: string;
  recorded_at: EpochSeconds;
  duration_seconds: number;
}

/** A window of a list: `offset` items skipped, at most `limit` returned. */
export interface Window {
  offset: number;
  limit: number;
}

export interface Slice<T> {
  items: T[];
  /** Number of matching items over the whole list, not only this window. */
  total: number;
}

export interface OrderFilter {
  /** Only orders changed strictly after this time. */
  updatedAfter?: EpochSeconds;
  /** Only orders registered at or after this time. */
  registeredFrom?: EpochSeconds;
  statusCode?: number;
}

export interface ChangeFilter {
  /** Only items changed strictly after this time. */
  updatedAfter?: EpochSeconds;
}

export interface StockFilter extends ChangeFilter {
  productCode?: string;
}

/** A period `[from, until)`. */
export interface Period {
  from: EpochSeconds;
  until: EpochSeconds;
}

export type OrderChanges = Partial<
  Pick<
    OrderRecord,
    'quantity' | 'receiver_name' | 'receiver_phone' | 'receiver_address' | 'memo' | 'order_status_code' | 'invoice_no'
  >
> & { updated_at: EpochSeconds };

/**
 * Reads; available outside and inside a transaction. `owner` scopes every read to one seller's data in one
 * environment (DECISIONS G20): nothing of another account or of the other environment is ever seen.
 */
export interface StoreReader {
  listSuppliers(owner: Owner, window: Window): Promise<Slice<SupplierRecord>>;

  findProduct(owner: Owner, productCode: string): Promise<ProductRecord | undefined>;
  /** Products in the order they were created. */
  listProducts(owner: Owner, filter: ChangeFilter, window: Window): Promise<Slice<ProductRecord>>;
  findOption(owner: Owner, productCode: string, optionCode: string): Promise<OptionRecord | undefined>;
  /** Options of one product in the order they were added. */
  listOptions(owner: Owner, productCode: string, window: Window): Promise<Slice<OptionRecord>>;
  findStock(owner: Owner, productCode: string, optionCode: string | null): Promise<StockRecord | undefined>;
  /** Stock rows by product (creation order), each product's own row first, then its options in the order added. */
  listStock(owner: Owner, filter: StockFilter, window: Window): Promise<Slice<StockRecord>>;

  /** `owner` null looks an order up across every seller and environment (the operator's tools). */
  findOrder(owner: Owner | null, orderNo: string): Promise<(OrderRecord & { owner: Owner }) | undefined>;
  /** Which of `mallOrderNos` the owner's orders already use. */
  orderMallOrderNos(owner: Owner, mallOrderNos: readonly string[]): Promise<Set<string>>;
  /** Newest registration first. */
  listOrders(owner: Owner, filter: OrderFilter, window: Window): Promise<Slice<OrderRecord>>;
  /** The same list as `listOrders`, each order read only as far as a summary needs (fewer columns, less work). */
  listOrderSummaries(owner: Owner, filter: OrderFilter, window: Window): Promise<Slice<OrderSummaryRecord>>;

  findDraft(owner: Owner, draftId: string): Promise<DraftRecord | undefined>;
  /** Which of `mallOrderNos` the owner's drafts already use. */
  draftMallOrderNos(owner: Owner, mallOrderNos: readonly string[]): Promise<Set<string>>;

  findReturn(owner: Owner, returnNo: string): Promise<ReturnRecord | undefined>;
  /** The order's return that is not withdrawn, if any. */
  findOpenReturn(owner: Owner, orderNo: string): Promise<ReturnRecord | undefined>;

  /** Newest first. */
  listDeposits(owner: Owner, period: Period, window: Window): Promise<Slice<DepositRecord>>;
  /** Oldest first. */
  listVideos(owner: Owner, invoiceNo: string, limit: number): Promise<VideoRecord[]>;

  /** How many records of each kind the owner has (the sandbox's reset, spec/sandbox/openapi.yaml). */
  countRecords(owner: Owner): Promise<RecordCounts>;
  /** The test clock of the account's test data; undefined while it is on real time. */
  findSandboxClock(accountId: string): Promise<SandboxClockRecord | undefined>;
}

/** Writes; only inside `DomainStore.transaction`. */
export interface StoreWriter {
  /** The next value (1, 2, …) of a named counter within a scope, such as order numbers of one day. */
  nextSequence(name: string, scope: string): Promise<number>;
  /** The next `count` values of the counter, reserved at once: resolves to the first of them. */
  nextSequenceBlock(name: string, scope: string, count: number): Promise<number>;

  insertSupplier(owner: Owner, supplier: SupplierRecord): Promise<void>;
  /** Inserts the product and its own stock row. */
  insertProduct(owner: Owner, product: Omit<ProductRecord, 'option_count'>, stockQuantity: number): Promise<void>;
  /** Inserts the option and its stock row, and marks the product changed at the option's creation time. */
  insertOption(owner: Owner, option: OptionRecord, stockQuantity: number): Promise<void>;

  /**
   * Takes `quantity` units from a stock row when at least that many are free; returns false (and changes nothing)
   * otherwise. The check and the decrement are one statement, so concurrent allocations cannot oversell.
   */
  allocateStock(
    owner: Owner,
    productCode: string,
    optionCode: string | null,
    quantity: number,
    at: EpochSeconds,
  ): Promise<boolean>;
  releaseStock(
    owner: Owner,
    productCode: string,
    optionCode: string | null,
    quantity: number,
    at: EpochSeconds,
  ): Promise<void>;

  /**
   * Inserts the order unless the owner already has one with its `mall_order_no` (written meanwhile by a concurrent
   * transaction, perhaps of another instance): false then, and nothing is written.
   */
  insertOrder(owner: Owner, order: OrderRecord): Promise<boolean>;
  updateOrder(owner: Owner, orderNo: string, changes: OrderChanges): Promise<void>;
  /**
   * Inserts the drafts, each unless the owner already has one with its `mall_order_no` (as `insertOrder`); resolves
   * to the `mall_order_no`s of those inserted.
   */
  insertDrafts(owner: Owner, drafts: readonly DraftRecord[]): Promise<Set<string>>;

  insertReturn(owner: Owner, ret: ReturnRecord): Promise<void>;
  markReturnWithdrawn(owner: Owner, returnNo: string, at: EpochSeconds): Promise<void>;

  insertDeposit(owner: Owner, deposit: DepositRecord): Promise<void>;
  insertVideo(owner: Owner, video: VideoRecord): Promise<void>;

  /** Removes every record of the owner, of every kind; resolves to how many of each were removed. */
  removeRecords(owner: Owner): Promise<RecordCounts>;
  /** Sets the test clock of the account's test data; null puts it back on real time. */
  setSandboxClock(accountId: string, clock: SandboxClockRecord | null): Promise<void>;
}

export type StoreTransaction = StoreReader & StoreWriter;

/** The records of one owner, counted by kind (`SandboxRecordCounts` of the sandbox document). */
export interface RecordCounts {
  orders: number;
  drafts: number;
  returns: number;
  products: number;
  options: number;
  stock: number;
  suppliers: number;
  videos: number;
  deposits: number;
}

/**
 * A test clock off real time: a running clock is `offset_ms` ahead of real time (behind when negative); a frozen
 * one stands at `frozen_at_ms` (epoch milliseconds).
 */
export interface SandboxClockRecord {
  offset_ms: number;
  frozen_at_ms: number | null;
}

export interface DomainStore extends StoreReader {
  /**
   * Runs `work` as one transaction: committed when it resolves, rolled back when it rejects, so a failure part-way
   * leaves nothing behind. On SQLite transactions run one after another; on PostgreSQL they run at once (read
   * committed, here and in other instances), so every rule between them is one conditional statement or a unique
   * key (`allocateStock`, `insertOrder`, `insertDrafts`, `nextSequence`), never a read followed by a write. A
   * transaction that deadlocks is run again from the start, so `work` must not act outside the store.
   */
  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T>;
}

/** Every kind of storage the server uses, of one engine. */
export interface Storage {
  readonly engine: 'sqlite' | 'postgres';
  accounts: AccountStore;
  domain: DomainStore;
  /** Resolves when the database answers (`/health`). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
