// The child side of a server process: tell the harness where it listens, and shut down when told to or when the
// harness goes away (so that no server outlives an interrupted run).

export interface Ready {
  ready: true;
  url: string;
}

export function announce(url: string, close: () => Promise<void>): void {
  let closing = false;
  const shutdown = (code: number) => {
    if (closing) return;
    closing = true;
    close().then(
      () => process.exit(code),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown(0));
  process.on('SIGINT', () => shutdown(0));
  process.on('disconnect', () => shutdown(0));
  if (!process.send) throw new Error('this server must be started by the harness, with an IPC channel');
  process.send({ ready: true, url } satisfies Ready);
}
