import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger, OnApplicationShutdown } from '@nestjs/common';

/**
 * A listener of its own beside the app's port (`/metrics`, the `/__*` routes), so the public listener does not
 * publish what it serves. Opened once the app is up ({@link SideListener.open}); closed on application shutdown,
 * which comes after the HTTP drain, so it stays readable while the app drains.
 */
export abstract class SideListener implements OnApplicationShutdown {
  private server: Server | undefined;

  /** The port it listens on (useful with port 0). */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  /** Listens with `server` on `where`, then logs `msg` with the address (the port chosen when 0 was asked). */
  protected async open(
    server: Server,
    where: { readonly host: string; readonly port: number },
    logger: Logger,
    msg: string,
  ): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(where.port, where.host, () => resolve());
    });
    this.server = server;
    logger.log({ msg, host: where.host, port: this.port });
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
