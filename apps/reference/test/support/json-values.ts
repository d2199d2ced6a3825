// Generated JSON values, reproducible from a seed: what the JSON readers and writers of the server are compared with
// JSON.parse and JSON.stringify on.
import { createHash } from 'node:crypto';

/** Numbers in [0, 1) drawn from `seed` by SHA-256, so that a failure names a seed that reproduces it. */
export function random(seed: number): () => number {
  let n = 0;
  return () => createHash('sha256').update(`${seed}:${n++}`).digest().readUInt32BE(0) / 2 ** 32;
}

const KEYS = ['a', 'mall_order_no', '', '__proto__', 'x y', '가', 'a', '\\"', 'constructor'];
const STRINGS = [
  '',
  'Kim Minji',
  '12 Teheran-ro, Seoul',
  '가나다',
  'a,b:c[d]{e}',
  'quote " and \\ slash',
  '\u2028',
  '😀',
];

export function value(rand: () => number, depth: number): unknown {
  const pick = rand();
  if (depth > 4 || pick < 0.35) {
    const kind = Math.floor(rand() * 6);
    if (kind === 0) return STRINGS[Math.floor(rand() * STRINGS.length)];
    if (kind === 1) return Math.floor(rand() * 2000) - 1000;
    if (kind === 2) return rand() * 1e6;
    if (kind === 3) return rand() < 0.5;
    if (kind === 4) return null;
    return 1e21;
  }
  const n = Math.floor(rand() * 6);
  if (pick < 0.65) return Array.from({ length: n }, () => value(rand, depth + 1));
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const key = KEYS[Math.floor(rand() * KEYS.length)]!;
    Object.defineProperty(out, key, {
      value: value(rand, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
