import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { applyServerLimits, type ServerLimits } from '../server-limits.js';

/** Where the `/__*` routes are served when they have a listener of their own (`ADMIN_HOST`, `ADMIN_PORT`). */
export interface AdminListenerOptions {
  /** `ADMIN_HOST`: the interface. @default '127.0.0.1' (see `shellEnv`) */
  readonly host: string;
  /** `ADMIN_PORT`; 0 picks a free port (logged, and read back with {@link AdminListener.port}). */
  readonly port: number;
  /** The app's own limits, so a slow client holds the admin port no longer than the public one. */
  readonly serverLimits?: ServerLimits;
}

/** DI token of the {@link AdminListenerOptions} (absent: the `/__*` routes are on the app's port). */
export const ADMIN_LISTENER_OPTIONS = Symbol('ADMIN_LISTENER_OPTIONS');

// Marked when the admin server hands a request to the app: which listener a request came through cannot be told from
// the request itself (a port number may be 0 in the config, a proxy may front either).
const viaAdminListener = new WeakSet<IncomingMessage>();

/** True when `req` arrived on the {@link AdminListener}, not on the app's port. */
export function arrivedOnAdminListener(req: IncomingMessage): boolean {
  return viaAdminListener.has(req);
}

/**
 * The `/__*` routes (`/__faults`, `/__config`, `/__requests`) on a port of their own, so the public listener (the
 * gateway's) never serves them: the same app answers both ports (one set of routes, middleware and filter), and the
 * shell's {@link CallerAuthenticationMiddleware} answers 404 to a `/__*` path on the app's port and to any other path
 * on this one. Opened once the app is up, closed after the HTTP drain (a scenario may read the journal while the
 * app drains).
 */
@Injectable()
export class AdminListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('admin');
  private server: Server | undefined;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(ADMIN_LISTENER_OPTIONS) private readonly options: AdminListenerOptions,
  ) {}

  /** The port it listens on (useful with port 0). */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async onApplicationBootstrap(): Promise<void> {
    const app = this.adapterHost.httpAdapter.getInstance<RequestListener>();
    const server = createServer((req, res) => {
      viaAdminListener.add(req);
      app(req, res);
    });
    if (this.options.serverLimits !== undefined) applyServerLimits(server, this.options.serverLimits);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => resolve());
    });
    this.server = server;
    this.logger.log({ msg: 'admin listening', host: this.options.host, port: this.port });
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
