// The hostile-request corpus: one file per case in `corpus/`, each the raw bytes of one request and the reason the
// case exists. A bug found by hand or by a fuzzer becomes one more file. Format of a case file:
//
//   # reason: why the case exists (what broke, or what could)
//   # servers: reference mock docs      (which servers get it; default all three)
//   # expect: 400 INVALID_PARAMETER     (the API servers' answer: a status, and optionally the error code)
//   # docs: 404                          (the docs server's status; default any 4xx)
//   GET /v3/wms/orders?size=Infinity HTTP/1.1
//   Host: localhost
//   X-API-Key: {{wms_key}}
//
//   (body)
//
// The head's lines are sent with CRLF endings. Escapes and placeholders, expanded anywhere:
//   \xNN             one byte (`\xFF` makes invalid UTF-8)
//   \r \n            a carriage return or a line feed where the file's own line ends would not do
//   {{name}}         a credential or value the runner supplies (`wms_key`, `manager_key`, `cam_key`)
//   {{repeat T N}}   T repeated N times (`{{repeat [ 5000}}` nests an array 5,000 deep)
//   {{length}}       the byte length of the body, for Content-Length
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type ServerName = 'reference' | 'mock' | 'docs';
export const SERVERS: readonly ServerName[] = ['reference', 'mock', 'docs'];

export interface HostileCase {
  /** The file name without `.http`. */
  name: string;
  reason: string;
  servers: ServerName[];
  /** The API servers' status and, when given, code. */
  expect?: { status: number; code?: string };
  /** The docs server's status; undefined: any 4xx. */
  docs?: number;
  /** The request template: expanded per server by `render`. */
  template: string;
}

const META = /^#\s*([a-z]+):\s*(.*)$/;

export function parseCase(name: string, text: string): HostileCase {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const meta: Record<string, string> = {};
  while (lines.length > 0 && lines[0]!.startsWith('#')) {
    const m = META.exec(lines.shift()!);
    if (m) meta[m[1]!] = m[2]!.trim();
  }
  if (!meta.reason) throw new Error(`corpus/${name}.http has no "# reason:" line: every case says why it exists`);
  const servers = (meta.servers ?? SERVERS.join(' ')).split(/\s+/).filter(Boolean) as ServerName[];
  const unknown = servers.filter((s) => !SERVERS.includes(s));
  if (unknown.length > 0) throw new Error(`corpus/${name}.http names unknown servers: ${unknown.join(', ')}`);
  const hostileCase: HostileCase = { name, reason: meta.reason, servers, template: lines.join('\n') };
  if (meta.expect) {
    const [status, code] = meta.expect.split(/\s+/);
    hostileCase.expect = { status: Number(status), ...(code ? { code } : {}) };
  }
  if (meta.docs) hostileCase.docs = Number(meta.docs);
  return hostileCase;
}

export function loadCorpus(dir: string): HostileCase[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.http'))
    .sort()
    .map((f) => parseCase(f.slice(0, -'.http'.length), readFileSync(join(dir, f), 'utf8')));
}

function expand(text: string, values: Record<string, string>): string {
  return text
    .replace(/\{\{repeat (\S+) (\d+)\}\}/g, (_, t: string, n: string) => t.repeat(Number(n)))
    .replace(/\{\{([a-z_]+)\}\}/g, (whole, key: string) => (key === 'length' ? whole : (values[key] ?? whole)));
}

/** Turns `\xNN`, `\r` and `\n` escapes into bytes. */
function bytesOf(text: string): Buffer {
  const parts: Buffer[] = [];
  let last = 0;
  for (const m of text.matchAll(/\\x([0-9A-Fa-f]{2})|\\r|\\n/g)) {
    parts.push(Buffer.from(text.slice(last, m.index), 'utf8'));
    parts.push(m[1] ? Buffer.from([parseInt(m[1], 16)]) : Buffer.from(m[0] === '\\r' ? '\r' : '\n'));
    last = m.index! + m[0].length;
  }
  parts.push(Buffer.from(text.slice(last), 'utf8'));
  return Buffer.concat(parts);
}

/** The bytes of a case for one server: head lines joined by CRLF, a blank line, the body as written. */
export function render(hostileCase: HostileCase, values: Record<string, string>): Buffer {
  const text = expand(hostileCase.template, values);
  const blank = text.indexOf('\n\n');
  const headText = blank === -1 ? text.replace(/\n+$/, '') : text.slice(0, blank);
  const body = blank === -1 ? Buffer.alloc(0) : bytesOf(text.slice(blank + 2).replace(/\n$/, ''));
  const head = bytesOf(
    headText
      .split('\n')
      .join('\r\n')
      .replace(/\{\{length\}\}/g, String(body.length)),
  );
  return Buffer.concat([head, Buffer.from('\r\n\r\n'), body]);
}
