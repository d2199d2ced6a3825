// Type helpers over the generated `paths`. openapi-fetch's own helpers live in a package this one does not depend
// on directly, so the few needed here are spelled out.
import type { FetchOptions, FetchResponse, MaybeOptionalInit, ParseAsResponse } from 'openapi-fetch';
import type { paths } from '../generated/openapi.js';
import type { SandboxOutcomeOption } from './sandbox.js';

/** The JSON body of a response or request-body object. */
export type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The body of an operation's 200 response. */
export type SuccessBody<Op> = Op extends { responses: { 200: infer R } } ? JsonContent<R> : never;

/** Every path that has a GET operation. */
export type GetPath = { [P in keyof paths]: paths[P] extends { get: object } ? P : never }[keyof paths];

/** The GET operation of a path. */
export type GetOperation<P extends GetPath> = paths[P] extends { get: infer Op } ? Op : never;

/** Every paged list: a GET whose success body carries `pagination` next to a `data` array. */
export type PagedPath = {
  [P in GetPath]: SuccessBody<GetOperation<P>> extends { pagination: object; data: readonly unknown[] } ? P : never;
}[GetPath];

/** The success body of one page of a paged list. */
export type Page<P extends PagedPath> = SuccessBody<GetOperation<P>>;

/** One item of a paged list. */
export type PageItem<P extends PagedPath> = Page<P> extends { data: readonly (infer I)[] } ? I : never;

/** The init argument of `client.GET(path, init)`. */
export type GetInit<P extends GetPath> = FetchOptions<GetOperation<P>>;

/** `[init]` when the operation has required parameters, `[init?]` otherwise (as openapi-fetch does). */
// biome-ignore lint/complexity/noBannedTypes: `{} extends T` is how a type asks whether every property of T is optional
export type InitArgs<I> = {} extends I ? [init?: I] : [init: I];

/** The HTTP methods openapi-fetch has a client method for, as the generated `paths` spell them. */
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

/** Every path that has an operation for `M`. */
export type PathWithMethod<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];

/** What a call's init takes beyond openapi-fetch's: `sandbox`, an outcome the reference sandbox forces (sandbox.ts). */
export interface CallOptions {
  sandbox?: SandboxOutcomeOption;
}

// openapi-fetch's rule for its `init` argument, spelled out because it does not export it: required when the
// operation has a required parameter or body, optional otherwise.
// biome-ignore lint/complexity/noBannedTypes: `{} extends Pick<T, K>` is how a type asks whether K is optional in T
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
type InitParam<Init> =
  RequiredKeys<Init> extends never
    ? [(Init & CallOptions & { [key: string]: unknown })?]
    : [Init & CallOptions & { [key: string]: unknown }];

// biome-ignore lint/suspicious/noExplicitAny: the constraint openapi-fetch puts on an operation object
type Operation<P extends keyof paths, M extends HttpMethod> = Extract<paths[P][M], Record<string | number, any>>;

/**
 * The success body of a call: the operation's 200 JSON body as generated (or what `parseAs` makes of it).
 * openapi-fetch's own `data` passes the body through a `Readable` mapping that turns an open value such as
 * `number & {}` (scripts/generate.mjs types open sets so; README, "Open value types") into an object type, so the
 * generated type is used as it is.
 */
export type CallData<Op, Init> = ParseAsResponse<SuccessBody<Op>, Init>;

/** The error body of a call: the API's error envelope, as openapi-fetch types it. */
export type CallError<Op extends Record<string | number, unknown>, Init> = NonNullable<
  FetchResponse<Op, Init, `${string}/${string}`>['error']
>;

/**
 * What a call of a client with `throwOnError: true` resolves to: never an error, which is thrown instead.
 * `requestId` is the service's `X-Request-Id` of the response, when it sent one.
 */
export type SuccessResponse<Op, Init> = {
  data: CallData<Op, Init>;
  error?: never;
  response: Response;
  requestId: string | undefined;
};

/** What a call resolves to by default: the success body, or the error envelope (with the request id either way). */
export type CallResponse<Op extends Record<string | number, unknown>, Init> =
  | SuccessResponse<Op, Init>
  | { data?: never; error: CallError<Op, Init>; response: Response; requestId: string | undefined };

type Result<Op extends Record<string | number, unknown>, Init, Throwing extends boolean> = Throwing extends true
  ? SuccessResponse<Op, Init>
  : CallResponse<Op, Init>;

/** A method of the client (`GET`, `POST`, …): openapi-fetch's, with the result typed as above. */
export type CallMethod<M extends HttpMethod, Throwing extends boolean> = <
  P extends PathWithMethod<M>,
  Init extends MaybeOptionalInit<paths[P], M>,
>(
  url: P,
  ...init: InitParam<Init>
) => Promise<Result<Operation<P, M>, Init, Throwing>>;

/** openapi-fetch's `request(method, url, init)`, typed like `CallMethod`. */
export type RequestMethod<Throwing extends boolean> = <
  M extends HttpMethod,
  P extends PathWithMethod<M>,
  Init extends MaybeOptionalInit<paths[P], M>,
>(
  method: M,
  url: P,
  ...init: InitParam<Init>
) => Promise<Result<Operation<P, M>, Init, Throwing>>;

/** The call methods of a client; `Throwing` when it was created with `throwOnError: true`. */
export interface CallMethods<Throwing extends boolean> {
  request: RequestMethod<Throwing>;
  GET: CallMethod<'get', Throwing>;
  PUT: CallMethod<'put', Throwing>;
  POST: CallMethod<'post', Throwing>;
  DELETE: CallMethod<'delete', Throwing>;
  OPTIONS: CallMethod<'options', Throwing>;
  HEAD: CallMethod<'head', Throwing>;
  PATCH: CallMethod<'patch', Throwing>;
  TRACE: CallMethod<'trace', Throwing>;
}
