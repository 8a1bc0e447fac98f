import { Controller, Get, Global, Module, Res, type DynamicModule, type Type } from '@nestjs/common';
import type { HttpReply } from '../http/http-platform.js';
import { HttpMetrics } from './metrics.js';
import {
  METRICS_LISTENER_OPTIONS,
  MetricsListener,
  type MetricsListenerOptions,
} from './metrics-listener.js';

/** `GET /metrics` on the app's own port (when it has no {@link MetricsListener}). */
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: HttpMetrics) {}

  @Get()
  async scrape(@Res({ passthrough: true }) res: HttpReply): Promise<string> {
    res.header('Content-Type', this.metrics.registry.contentType);
    return this.metrics.registry.metrics();
  }
}

/**
 * Prometheus metrics: the registry, the counters every feature increments, and `GET /metrics`, on the app's own
 * port or, given a listener, on a port of its own ({@link MetricsListener}). Global: the app's metrics class and
 * {@link HttpMetrics} resolve to the same instance everywhere.
 */
@Global()
@Module({})
export class MetricsModule {
  /**
   * @param metrics - the app's metrics class (a subclass of {@link HttpMetrics} with its extra metrics).
   * @default HttpMetrics
   * @param listener - serve `GET /metrics` there instead of on the app's port. @default the app's port
   */
  static forRoot(
    metrics: Type<HttpMetrics> = HttpMetrics,
    listener?: MetricsListenerOptions | undefined,
  ): DynamicModule {
    const providers =
      metrics === HttpMetrics
        ? [{ provide: HttpMetrics, useFactory: () => new HttpMetrics().collectDefaultMetrics() }]
        : [
            { provide: metrics, useFactory: () => new metrics().collectDefaultMetrics() },
            { provide: HttpMetrics, useExisting: metrics },
          ];
    return {
      module: MetricsModule,
      controllers: listener === undefined ? [MetricsController] : [],
      providers: [
        ...providers,
        ...(listener === undefined
          ? []
          : [{ provide: METRICS_LISTENER_OPTIONS, useValue: listener }, MetricsListener]),
      ],
      exports: providers.map((provider) => provider.provide),
    };
  }
}
