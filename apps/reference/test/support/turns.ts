// How many turns of the event loop other work got while something ran: what a slice, a break or a pause is for.
import { setImmediate as nextTurn } from 'node:timers/promises';

export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const ticker = (async () => {
    while (running) {
      await nextTurn();
      turns++;
    }
  })();
  try {
    return { result: await work(), turns };
  } finally {
    running = false;
    await ticker;
  }
}
