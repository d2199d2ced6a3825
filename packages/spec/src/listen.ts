// A refused listen in the words every command of ours that listens uses (the reference server, the mock, the docs
// preview, the MCP server over HTTP): one line naming what to change, in the command's own setting names, in place
// of Node's `listen EADDRINUSE: address already in use`, which names the failure but not the remedy.

/** How a command is told where to listen: its settings' names (`PORT` and `HOST`, or `--port` and `--host`). */
export interface ListenSettings {
  port: string;
  host: string;
}

/** A refused listen as one line naming what to change (no final stop), or undefined for any other error. */
export function listenRefusal(err: unknown, settings: ListenSettings): string | undefined {
  const e = err as (NodeJS.ErrnoException & { address?: string; port?: number }) | undefined;
  if (e?.syscall !== 'listen') return undefined;
  const at = e.port === undefined ? `${e.address}` : `${e.address}:${e.port}`;
  if (e.code === 'EADDRINUSE')
    return `${at} is in use: stop what holds it, or set ${settings.port} to another port (0 picks a free one)`;
  if (e.code === 'EADDRNOTAVAIL')
    return `${e.address} is not an address of this machine: set ${settings.host} to one that is`;
  if (e.code === 'EACCES')
    return `listening on ${at} is not allowed to this user: set ${settings.port} to a port above 1023`;
  return `listening on ${at} failed: ${e.message}`;
}
