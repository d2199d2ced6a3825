// One HTTP request through a keep-alive agent, timed from sent to the answer's last byte (queueing included).
import { type Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

export function send(
  agent: Agent,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: Uint8Array,
): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      url,
      {
        method,
        agent,
        headers: body
          ? { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(body.byteLength) }
          : headers,
        timeout: 120_000,
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
        res.once('error', reject);
      },
    );
    req.once('timeout', () => req.destroy(new Error('no answer within 120 s')));
    req.once('error', reject);
    req.end(body);
  });
}
