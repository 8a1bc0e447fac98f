import type { RequestListener } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { HttpMetrics } from './metrics.js';
import { SideListener } from '../side-listener.js';

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
export class MetricsListener extends SideListener {
  constructor(
    private readonly metrics: HttpMetrics,
    @Inject(METRICS_LISTENER_OPTIONS) options: MetricsListenerOptions,
  ) {
    super(options, 'metrics');
  }

  protected handler(): RequestListener {
    return (req, res) => {
      if (req.method !== 'GET' || req.url?.split('?', 1)[0] !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': this.metrics.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    };
  }
}
