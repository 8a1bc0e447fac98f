import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { applyServerLimits, type ServerLimits } from './server-limits.js';

/** Where a {@link SideListener} listens. */
export interface SideListenerAddress {
  readonly host: string;
  /** 0 picks a free port (logged, and read back with {@link SideListener.port}). */
  readonly port: number;
  /** The app's own limits, so a slow client holds this port no longer than the public one. @default Node's */
  readonly serverLimits?: ServerLimits;
}

/**
 * A listener of its own beside the app's port (`/metrics`, the `/__*` routes), so the public listener does not
 * publish what it serves. Opened once the app is up, with what {@link SideListener.handler} answers; closed on
 * application shutdown, which comes after the HTTP drain, so it stays readable while the app drains.
 */
export abstract class SideListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: Server | undefined;

  /** @param name - the logger's context, and the log line `<name> listening` once it listens. */
  protected constructor(
    private readonly address: SideListenerAddress,
    private readonly name: string,
  ) {}

  /** The port it listens on (useful with port 0). */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  /** What the listener answers each request with. */
  protected abstract handler(): RequestListener;

  async onApplicationBootstrap(): Promise<void> {
    const { host, port, serverLimits } = this.address;
    const server = createServer(this.handler());
    if (serverLimits !== undefined) applyServerLimits(server, serverLimits);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    new Logger(this.name).log({ msg: `${this.name} listening`, host, port: this.port });
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
