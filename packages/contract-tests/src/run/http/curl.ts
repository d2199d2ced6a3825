// A curl command for every request a report shows, so that a partner can replay it: secrets appear as the
// environment variables that hold them, and a body too long for a console line goes to a file beside the reports.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redactor } from '../../plan/credentials.js';
import type { Exchange } from './exchange.js';

export interface CurlOptions {
  redactor: Redactor;
  /** Where request bodies too long for a console line are written for their curl reproduction. */
  artifactsDir?: string;
}

export class CurlLines {
  private artifactCount = 0;

  constructor(private readonly options: CurlOptions) {}

  /** A curl command that replays the request, secrets shown as environment variable references. */
  curl(exchange: Exchange): string {
    const r = this.options.redactor;
    const req = exchange.request;
    const parts = [`curl -sS -i -X ${req.method.toUpperCase()} ${shellQuote(r.redact(req.url))}`];
    const cred = req.credential;
    if (cred.kind === 'apiKey') parts.push(`-H "X-API-Key: $${cred.ref}"`);
    else if (cred.kind === 'bearer') parts.push(`-H "Authorization: Bearer $${cred.ref}"`);
    else if (cred.kind === 'raw') {
      for (const [k, v] of Object.entries(cred.headers)) parts.push(`-H ${shellQuote(`${k}: ${r.redact(v)}`)}`);
    }
    for (const [k, v] of Object.entries(req.headers ?? {})) parts.push(`-H ${shellQuote(`${k}: ${r.redact(v)}`)}`);
    if (req.bodyText !== undefined) {
      if (!Object.keys(req.headers ?? {}).some((h) => h.toLowerCase() === 'content-type')) {
        parts.push(`-H 'Content-Type: application/json'`);
      }
      const body = r.redact(req.bodyText);
      if (body.length > 2000 && this.options.artifactsDir) {
        mkdirSync(this.options.artifactsDir, { recursive: true });
        this.artifactCount += 1;
        const file = join(this.options.artifactsDir, `request-body-${this.artifactCount}.json`);
        writeFileSync(file, body);
        parts.push(`--data-binary @${shellQuote(file)}`);
      } else if (/\$CLS_[A-Z0-9_]+/.test(body)) {
        parts.push(`--data-raw ${doubleQuoteWithRefs(body)}`);
      } else {
        parts.push(`--data-raw ${shellQuote(body)}`);
      }
    }
    return parts.join(' ');
  }
}

function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_\-./:=@%+,]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Double-quoted so that `$CLS_…` references expand; every other shell-special character is escaped. */
function doubleQuoteWithRefs(s: string): string {
  const escaped = s.replace(/[\\"`]/g, (c) => `\\${c}`).replace(/\$(?!CLS_[A-Z0-9_]+)/g, '\\$');
  return `"${escaped}"`;
}
