import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpMetrics } from './metrics.js';

/** Where `GET /metrics` is served when it has a listener of its own (`METRICS_HOST`, `METRICS_PORT`). */
export interface MetricsListenerOptions {
  /** `METRICS_HOST`: the interface. @default '127.0.0.1' (see `shellEnv`) */
  readonly host: string;
  /** `METRICS_PORT`; 0 picks a free port (logged, and read back with {@link MetricsListener.port}). */
  readonly port: number;
}

/** DI token of the {@link MetricsListenerOptions}. */
export const METRICS_LISTENER_OPTIONS = Symbol('METRICS_LISTENER_OPTIONS');

/**
 * `GET /metrics` on a port of its own, so a public listener (the gateway's) does not publish the service's
 * internals. Opened once the app is up, closed after the HTTP drain (metrics stay readable while it drains).
 */
@Injectable()
export class MetricsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('metrics');
  private server: Server | undefined;

  constructor(
    private readonly metrics: HttpMetrics,
    @Inject(METRICS_LISTENER_OPTIONS) private readonly options: MetricsListenerOptions,
  ) {}

  /** The port it listens on (useful with port 0). */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async onApplicationBootstrap(): Promise<void> {
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?', 1)[0] !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': this.metrics.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => resolve());
    });
    this.server = server;
    this.logger.log({ msg: 'metrics listening', host: this.options.host, port: this.port });
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
