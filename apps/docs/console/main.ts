// The console of the documentation site: Scalar's API client (its modal) opened on an operation's page, sending the
// request to the server the reader picks, with a test key only (live-key.ts). The page loads this module once a
// reader presses "Try it" on an operation; the contract comes from the site's own `openapi.json`.
import '@scalar/api-client/style.css';
import { createApiClientModal } from '@scalar/api-client/modal';
import { createWorkspaceStore } from '@scalar/workspace-store/client';
import { LIVE_KEY_REFUSED, liveCredentialIn } from './live-key.js';

interface Operation {
  path: string;
  method: string;
}

/** The servers a reader can send to, first the one the console opens with. */
export interface ConsoleServer {
  url: string;
  description: string;
  variables?: Record<string, { default: string; description?: string }>;
}

/** Where the local sandbox and the mock listen when started with `pnpm start` and `pnpm mock`. */
export const DEFAULT_SERVERS: ConsoleServer[] = [
  { url: 'http://127.0.0.1:3000', description: 'Local sandbox (the reference server of pnpm start)' },
  { url: 'http://127.0.0.1:4010', description: "Mock server (pnpm mock): answers from the contract's examples" },
  {
    url: '{base_url}',
    description: 'Another server: type its address',
    variables: { base_url: { default: 'http://127.0.0.1:3000', description: 'The address, without a trailing slash' } },
  },
];

/** Refuses a request that carries a live credential before it is sent: nothing leaves the browser. */
const testKeysOnly: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const body = request.body === null ? undefined : await request.clone().text();
  const where = liveCredentialIn(request.headers, body);
  // Scalar's client shows the message of a failed fetch to the reader.
  if (where !== undefined) throw new Error(`${LIVE_KEY_REFUSED} A live key is in ${where}.`);
  return fetch(request);
};

let opened: Promise<{ open(slug: string): void }> | undefined;

async function start(documentUrl: string, servers: ConsoleServer[]) {
  const document_ = (await (await fetch(documentUrl)).json()) as Record<string, unknown>;
  // The client's styles, built beside this module (vite.config.ts).
  const styles = document.createElement('link');
  styles.rel = 'stylesheet';
  styles.href = new URL(/* @vite-ignore */ 'console.css', import.meta.url).href;
  document.head.append(styles);
  const store = createWorkspaceStore();
  // The servers a reader can send to replace the contract's own (its service address is the account's to give).
  await store.addDocument({ name: 'cls-api', document: { ...document_, servers } });
  const mount = document.createElement('div');
  mount.id = 'cls-console';
  // Scalar's styles apply inside `.scalar-app`, its colours under `.light-mode`.
  mount.className = 'scalar-app light-mode';
  document.body.append(mount);
  const modal = createApiClientModal({
    el: mount,
    workspaceStore: store,
    options: { customFetch: testKeysOnly, hideClientButton: true },
  });
  // Redoc names an operation's section by its operationId in lower case (`wms-orders/listwmsorders`).
  const bySlug = new Map<string, Operation>();
  for (const [path, item] of Object.entries((document_.paths ?? {}) as Record<string, Record<string, unknown>>))
    for (const [method, op] of Object.entries(item)) {
      const id = (op as { operationId?: unknown } | null)?.operationId;
      if (typeof id === 'string') bySlug.set(id.toLowerCase(), { path, method });
    }
  return {
    open(slug: string) {
      const op = bySlug.get(slug);
      if (!op) throw new Error(`no operation ${slug} in ${documentUrl}`);
      modal.open({ path: op.path, method: op.method as 'get' });
    },
  };
}

/**
 * Opens the console on one operation, named as Redoc names its section (the operationId in lower case); the first
 * call loads the contract and mounts the client.
 */
export async function openConsole(
  slug: string,
  documentUrl = 'openapi.json',
  servers: ConsoleServer[] = DEFAULT_SERVERS,
): Promise<void> {
  opened ??= start(documentUrl, servers);
  (await opened).open(slug);
}
