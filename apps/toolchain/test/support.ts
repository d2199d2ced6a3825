// What every tool of the matrix needs: the published bundle, the CLIs of the tools as their packages declare them,
// a scratch folder, and the credential each security scheme of the contract stands for.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, inject } from 'vitest';
import { ContractModel, loadSpec, openapiJsonPath, type CredentialScheme } from '@cls-api/spec';
import { JAVA_RUNTIME, keyOf, type DemoAccount, type KeyArea } from '@cls-api/test-servers';

/** The reference server of the global set-up, or the set-up's failure. */
export function reference(): { baseUrl: string; seller: DemoAccount } {
  const provided = inject('reference');
  if ('error' in provided) throw new Error(`the matrix's set-up failed: ${provided.error}`);
  return { baseUrl: provided.baseUrl, seller: provided.accounts[0]! };
}

/** The bundle a partner downloads: `@cls-api/spec/openapi.json`. */
export const BUNDLE = openapiJsonPath;
export const model = new ContractModel(loadSpec());

const require = createRequire(import.meta.url);

/** The file of a package's bin, read from its package.json (what `npx` would run). */
export function binOf(packageName: string, binName: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const { bin } = require(manifestPath) as { bin: string | Record<string, string> };
  const entry = typeof bin === 'string' ? bin : bin[binName];
  if (entry === undefined) throw new Error(`${packageName} has no \`${binName}\` bin`);
  return join(dirname(manifestPath), entry);
}

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a Node CLI to its end, whatever its exit code. */
export function runNode(bin: string, args: string[], options: { cwd: string; env?: Record<string, string> }) {
  return run(process.execPath, [bin, ...args], options);
}

/**
 * Specmatic's command: the jar its npm package ships, on Debian's Java. Its npm wrapper relays the JVM's output one
 * read at a time with a line break after each, which splits lines of the report at random places; the jar itself
 * prints them whole.
 */
export function specmaticCommand(args: string[]): [string, string[]] {
  const jar = join(dirname(require.resolve('specmatic/package.json')), 'specmatic.jar');
  return [JAVA_RUNTIME[1], ['-jar', jar, ...args]];
}

/** Runs a command to its end, whatever its exit code. */
export function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }) {
  return new Promise<ToolRun>((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: { ...process.env, ...options.env }, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * A folder of the run's temporary folder (never the checkout: generated code is not committed), removed after the
 * file's tests unless one failed, so that what the tool wrote can be read.
 */
export function scratch(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `cls-toolchain-${name}-`));
  let failed = false;
  afterEach((context) => {
    if (context.task.result?.state === 'fail') failed = true;
  });
  afterAll(() => {
    if (failed) console.log(`[toolchain] kept ${dir}: what ${name} wrote`);
    else rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

const KEY_AREAS: readonly KeyArea[] = ['wms', 'manager', 'cam'];

/**
 * The area whose API key a scheme stands for: the one key area among the areas of the operations that require it
 * (`/v3/mcp/` takes any area's key, so it names none). A scheme that several areas' keys would have to share is
 * one no tool can fill with the right key, and fails here.
 */
export function keyAreaOf(scheme: CredentialScheme): KeyArea {
  const areas = model.areasAccepting(scheme.name).filter((a): a is KeyArea => KEY_AREAS.includes(a as KeyArea));
  if (areas.length !== 1)
    throw new Error(
      `security scheme ${scheme.name} stands for the keys of ${areas.length} areas (${areas.join(', ')})`,
    );
  // The scheme also names its area itself (x-key-area): both readings must agree.
  const raw = model.doc.components?.securitySchemes?.[scheme.name] as Record<string, unknown> | undefined;
  const stated = raw?.['x-key-area'];
  if (stated !== undefined && stated !== areas[0])
    throw new Error(`security scheme ${scheme.name} says x-key-area ${String(stated)}, its operations ${areas[0]}`);
  return areas[0]!;
}

/** Each security scheme of the contract, by name, with the credential of the demo account it takes. */
export function credentialsByScheme(
  account: DemoAccount,
  jwt: string,
): Map<string, { scheme: CredentialScheme; value: string }> {
  const out = new Map<string, { scheme: CredentialScheme; value: string }>();
  for (const scheme of model.credentialSchemes) {
    if (scheme.kind === 'http' && scheme.httpScheme === 'bearer') out.set(scheme.name, { scheme, value: jwt });
    else if (scheme.kind === 'apiKey') out.set(scheme.name, { scheme, value: keyOf(account, keyAreaOf(scheme)) });
    else throw new Error(`security scheme ${scheme.name} is neither an API key nor a bearer token`);
  }
  return out;
}

/** A JWT for the account's test client credentials, from the server itself. */
export async function obtainJwt(baseUrl: string, account: DemoAccount): Promise<string> {
  const res = await fetch(`${baseUrl}/v3/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: account.client_id, client_secret: account.client_secret }),
  });
  const body = (await res.json()) as { data?: { access_token?: string } };
  if (!res.ok || !body.data?.access_token) throw new Error(`POST /v3/auth/token answered ${res.status}`);
  return body.data.access_token;
}

/** Exported names of TypeScript code, as a partner's code imports them. */
export function exportedNames(code: string): string[] {
  return [
    ...code.matchAll(/^export (?:declare )?(?:type|interface|const|let|function|class|enum|async function) (\w+)/gm),
  ].map((m) => m[1]!);
}

/** Names that shadow a JavaScript global (`Error`, `Date`) or carry a generator's clash suffix (`OrderNo2`). */
export const awkwardNames = (names: string[]): string[] =>
  [...new Set(names)].filter((n) => n === 'Error' || n === 'Date' || /[A-Za-z]2$/.test(n)).sort();
