// Type helpers over the generated `paths`. openapi-fetch's own helpers live in a package this one does not depend
// on directly, so the few needed here are spelled out.
import type { FetchOptions } from 'openapi-fetch';
import type { paths } from '../generated/openapi.js';

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
