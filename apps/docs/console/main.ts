// The console of the documentation site: Scalar's API client (its modal) opened on an operation's page, sending the
// request to the server the reader picks, with a test key only (live-key.ts). The page loads this module once a
// reader presses "Try it" on an operation; the contract comes from the site's own `openapi.json`.
import '@scalar/api-client/style.css';
import { createApiClientModal } from '@scalar/api-client/modal';
import { createWorkspaceStore } from '@scalar/workspace-store/client';
import { LIVE_KEY_REFUSED, liveCredentialIn } from './live-key.js';
import { type ConsoleServer, consoleServers } from './servers.js';

interface Operation {
  path: string;
  method: string;
}

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

async function start(documentUrl: string) {
  const document_ = (await (await fetch(documentUrl)).json()) as Record<string, unknown>;
  // The client's styles, built beside this module (vite.config.ts).
  const styles = document.createElement('link');
  styles.rel = 'stylesheet';
  styles.href = new URL(/* @vite-ignore */ 'console.css', import.meta.url).href;
  document.head.append(styles);
  const store = createWorkspaceStore();
  const servers = consoleServers((document_.servers ?? []) as ConsoleServer[]);
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
export async function openConsole(slug: string, documentUrl = 'openapi.json'): Promise<void> {
  opened ??= start(documentUrl);
  (await opened).open(slug);
}
