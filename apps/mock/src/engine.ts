// The Prism engine behind the front server, under supervision.
import type { OpenApiDocument } from '@cls-api/spec';
import { startPrism, type PrismOptions, type PrismProcess } from './prism.js';

/**
 * Prism under supervision: Prism dies on some requests (a malformed percent escape reaches its router as an
 * uncaught URIError), so when it exits without being asked to, a new one is started, with a growing pause between
 * failed starts. Until it listens, `port` is undefined and the front server answers in the envelope itself.
 */
export class Engine {
  private current: PrismProcess | undefined;
  private restarting: Promise<void> | undefined;
  private closed = false;
  restarts = 0;

  constructor(
    private readonly doc: OpenApiDocument,
    private readonly options: PrismOptions,
    private readonly log: (line: string) => void,
  ) {}

  async start(): Promise<void> {
    this.current = await startPrism(this.doc, this.options);
    this.watch(this.current);
  }

  get port(): number | undefined {
    return this.current?.port;
  }

  get pid(): number | undefined {
    return this.current?.pid;
  }

  private watch(prism: PrismProcess): void {
    void prism.exited.then((code) => {
      if (this.closed || this.current !== prism) return;
      this.current = undefined;
      this.log(`Mock: Prism exited (${code ?? 'signal'}); restarting it`);
      this.restart();
    });
  }

  private restart(): void {
    this.restarting ??= (async () => {
      let pause = 250;
      while (!this.closed) {
        try {
          const prism = await startPrism(this.doc, this.options);
          if (this.closed) {
            await prism.close();
            return;
          }
          this.current = prism;
          this.restarts += 1;
          this.watch(prism);
          this.log(`Mock: Prism is serving again (restart ${this.restarts})`);
          return;
        } catch (err) {
          this.log(`Mock: Prism did not start: ${(err as Error).message.split('\n')[0]}; trying again`);
          await new Promise((r) => setTimeout(r, pause));
          pause = Math.min(pause * 2, 30_000);
        }
      }
    })().finally(() => {
      this.restarting = undefined;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.restarting;
    await this.current?.close();
  }
}
