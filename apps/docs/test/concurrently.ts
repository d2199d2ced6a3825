// Pages of the built site loaded a few at a time in one browser: a page load waits on the server, the network stack
// and the renderer in turn, so a few tabs keep a small machine's cores busy where one tab leaves them idle. Bounded,
// so that a loaded 2-core machine is not asked for dozens of renderers at once.

/** How many pages a test file loads at once. */
export const PAGES_AT_ONCE = 4;

/**
 * Runs `task` on every item, at most `limit` at a time, and resolves with the results in the items' order. After a
 * task fails no new one starts; it rejects with the first failure once the running ones have ended (so that none is
 * still using a page or browser the caller closes next).
 */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const i = next++;
      try {
        results[i] = await task(items[i]!, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw failure.error;
  return results;
}
