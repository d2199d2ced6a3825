// Large bodies are served one at a time per client address (src/plugins/json-body.ts, BodyTurns): an address's
// second large body waits, unread, while its first is being served, and no other client, nor that address's small
// requests (a small body included, sent as the test helper sends every body), waits for either. Driven by what the
// server holds (a first body half sent), not by timing.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BodyTurns } from '../../src/plugins/json-body.js';
import { LIMITS_OFF, startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let wms: string;

beforeAll(async () => {
  s = await startTestServer({ env: { ...LIMITS_OFF, TRUSTED_PROXIES: '127.0.0.1' } });
  const seller = await s.account({ paid: true });
  wms = await s.key(seller, 'wms', 'live');
  const created = await s.post(
    '/v3/wms/products',
    { product_code: 'TURN-P', product_name: 'Turn product', price: 1000, stock_quantity: 5000 },
    { apiKey: wms },
  );
  expect(created.status).toBe(200);
});
afterAll(async () => {
  await s?.close();
});

/** A draft request of one row. */
function draft(orderNo: string) {
  const row = {
    mall_order_no: orderNo,
    mall_product_name: 'Turn product',
    product_code: 'TURN-P',
    quantity: 1,
    receiver_name: 'Kim Minji',
    receiver_phone: '010-1234-5678',
    receiver_address: '12 Teheran-ro, Seoul',
  };
  return { orders: [row] };
}

/** A draft request of one row, padded with whitespace (valid JSON) to well above the size served in turns. */
function largeBody(orderNo: string): Buffer {
  return Buffer.from(`${JSON.stringify(draft(orderNo))}${' '.repeat(200_000)}`);
}

interface Sent {
  socket: Socket;
  /** Resolves with the status once the whole answer is in. */
  answer: Promise<number>;
  answered: boolean;
}

/** A draft request over a socket of its own from `ip` (X-Forwarded-For), of which only `bytes` of the body are sent. */
function send(ip: string, body: Buffer, bytes = body.length): Sent {
  const { port } = new URL(s.baseUrl);
  const socket = connect(Number(port), '127.0.0.1');
  const head =
    `POST /v3/wms/orders/draft HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${wms}\r\nX-Forwarded-For: ${ip}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  socket.write(head);
  socket.write(body.subarray(0, bytes));
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const sent: Sent = {
    socket,
    answered: false,
    answer: new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.once('close', () => {
        sent.answered = true;
        resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(chunks).toString('latin1'))?.[1] ?? 0));
      });
    }),
  };
  return sent;
}

/** Waits until `condition` holds, looking once per pass of the event loop; a bound only tells a state from none. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

describe('large bodies, one at a time per address', () => {
  it("an address's second large body waits unread while its first is served; other addresses and its small requests do not wait", async () => {
    const turns = s.app.bodyTurns;
    const body = largeBody('TURN-1');
    // The first body half sent: the server is reading it, and holds the address's turn.
    const first = send('203.0.113.1', body, body.length / 2);
    await until(() => turns.serving('203.0.113.1'));
    const second = send('203.0.113.1', largeBody('TURN-2'));
    await until(() => turns.waiting('203.0.113.1') === 1 || second.answered);
    // Both are counted as served (what a pause is owed to), until each is answered.
    expect(turns.requests('203.0.113.1')).toBe(2);
    // Another address's large body, and the same address's small request, are served meanwhile.
    const other = await s.request('POST', '/v3/wms/orders/draft', {
      apiKey: wms,
      ip: '203.0.113.2',
      body: largeBody('TURN-3').toString('utf8'),
      headers: { 'Content-Type': 'application/json' },
    });
    expect([other.status, other.body.data?.created_count]).toEqual([200, 1]);
    expect((await s.get('/v3/wms/suppliers', { apiKey: wms, ip: '203.0.113.1' })).status).toBe(200);
    // A small body of that address too, as the test helper sends it (its length declared): were it taken for a
    // large one, it would wait behind the second for the first, which waits on this test.
    let small: { status: number; created?: number } | undefined;
    void s.post('/v3/wms/orders/draft', draft('TURN-6'), { apiKey: wms, ip: '203.0.113.1' }).then((r) => {
      small = { status: r.status, created: r.body.data?.created_count };
    });
    await until(() => small !== undefined || turns.waiting('203.0.113.1') > 1);
    expect(small).toEqual({ status: 200, created: 1 });
    expect(second.answered).toBe(false);
    expect(turns.waiting('203.0.113.1')).toBe(1);
    // The first body completes: both are served, in order, and none is refused.
    first.socket.write(body.subarray(body.length / 2));
    expect(await first.answer).toBe(200);
    expect(await second.answer).toBe(200);
    // Each turn is given up after a pause as long as the body's own work: then no address holds one.
    await until(() => !turns.serving('203.0.113.1') && !turns.serving('203.0.113.2'));
    expect([turns.requests('203.0.113.1'), turns.requests('203.0.113.2')]).toEqual([0, 0]);
  });

  it('a turn held by a connection that closes mid-body passes to the next body of that address', async () => {
    const turns = s.app.bodyTurns;
    const body = largeBody('TURN-4');
    const first = send('203.0.113.3', body, body.length / 2);
    await until(() => turns.serving('203.0.113.3'));
    const second = send('203.0.113.3', largeBody('TURN-5'));
    await until(() => turns.waiting('203.0.113.3') === 1);
    first.socket.destroy();
    expect(await second.answer).toBe(200);
    await until(() => !turns.serving('203.0.113.3'));
  });
});

describe('BodyTurns', () => {
  /** Whether the second large body of `a` is let in `pauseMs` after the first one's work, which took `pauseMs`. */
  async function secondWaits(turns: BodyTurns, pauseMs: number): Promise<{ before: boolean; after: boolean }> {
    let second = false;
    const next = turns.take('a').then(() => {
      second = true;
    });
    turns.done('a', pauseMs);
    await vi.advanceTimersByTimeAsync(pauseMs - 1);
    const before = second;
    await vi.advanceTimersByTimeAsync(1);
    await next;
    return { before, after: second };
  }

  it("passes an address's turn on only after the pause its last body earned, when another address's request waited behind its work; other addresses never wait", async () => {
    vi.useFakeTimers();
    try {
      const turns = new BodyTurns((go, ms) => setTimeout(go, ms));
      await turns.take('a');
      turns.workBegins('a');
      // Another address's request arrives during the work.
      const leave = turns.arrive('b');
      await turns.take('b');
      expect(turns.waiting('a')).toBe(0);
      expect(await secondWaits(turns, 100)).toEqual({ before: false, after: true });
      leave();
      turns.done('a');
      turns.done('b');
      expect([turns.serving('a'), turns.serving('b')]).toEqual([false, false]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("pauses when another address's request was already in flight as the work began", async () => {
    vi.useFakeTimers();
    try {
      const turns = new BodyTurns((go, ms) => setTimeout(go, ms));
      const leave = turns.arrive('b');
      await turns.take('a');
      turns.workBegins('a');
      leave();
      expect(await secondWaits(turns, 100)).toEqual({ before: false, after: true });
      turns.done('a');
    } finally {
      vi.useRealTimers();
    }
  });

  it('passes the turn on at once when only the address itself was served: its own requests, or others answered before the work began', async () => {
    vi.useFakeTimers();
    try {
      const turns = new BodyTurns((go, ms) => setTimeout(go, ms));
      // Another address's request answered before the work began is owed nothing.
      turns.arrive('b')();
      const own = turns.arrive('a');
      await turns.take('a');
      turns.workBegins('a');
      const ownSmall = turns.arrive('a');
      let second = false;
      const next = turns.take('a').then(() => {
        second = true;
      });
      turns.done('a', 100);
      await vi.advanceTimersByTimeAsync(0);
      expect(second).toBe(true);
      await next;
      ownSmall();
      own();
      // The next body's work, again alone: no pause either.
      turns.workBegins('a');
      turns.done('a', 100);
      expect(turns.serving('a')).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('pauses in real time by default, even where the global setTimeout is a fake clock that stands still', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    try {
      const turns = new BodyTurns();
      await turns.take('a');
      turns.workBegins('a');
      turns.arrive('b');
      const next = turns.take('a');
      turns.done('a', 5);
      // The fake clock never moves here: the next body's turn comes all the same.
      await next;
      expect(turns.serving('a')).toBe(true);
      turns.done('a');
    } finally {
      vi.useRealTimers();
    }
  });
});
