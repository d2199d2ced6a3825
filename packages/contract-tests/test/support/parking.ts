// A request the fault proxy holds on purpose (a gateway that throttles instead of refusing) is parked: on the virtual
// clock (virtual-time.ts) time may move while every request on the wire is parked, since only the clock can end the
// wait. On the real clock parking changes nothing.
let count = 0;
const listeners = new Set<() => void>();

export function parkedCount(): number {
  return count;
}

/** Called whenever a request is parked, so the virtual clock can look again. */
export function onPark(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export async function parked<T>(wait: Promise<T>): Promise<T> {
  count += 1;
  for (const listener of listeners) listener();
  try {
    return await wait;
  } finally {
    count -= 1;
  }
}
