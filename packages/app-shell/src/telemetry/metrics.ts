import { Injectable } from '@nestjs/common';
import { IdempotencyEventType } from '@retry-safe/idempotency';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

// The types of the metrics a subclass declares with `counter()`/`histogram()`/`gaugeReadOnScrape()`, nameable from
// the app.
export type { Counter, Gauge, Histogram };

/**
 * The Prometheus metrics every HTTP service has, in a registry of its own. An app with metrics of its own extends
 * it (declaring them as fields registered in {@link HttpMetrics.registry}) and hands the subclass to
 * {@link MetricsModule.forRoot}.
 */
@Injectable()
export class HttpMetrics {
  readonly registry = new Registry();

  /** Requests by method, route template and status (`aborted` when the socket closed without a response). */
  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method and route template',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /** Attempts sent to a downstream service (first attempts and retries). */
  readonly upstreamAttempts = new Counter({
    name: 'upstream_attempts_total',
    help: 'Attempts sent to a downstream service',
    labelNames: ['upstream'] as const,
    registers: [this.registry],
  });

  /** Retries after a network error, a timeout or a 502/503/504, by what failed. */
  readonly upstreamRetries = new Counter({
    name: 'upstream_retries_total',
    help: 'Retries of calls to a downstream service, by the failure that caused them',
    labelNames: ['upstream', 'reason'] as const,
    registers: [this.registry],
  });

  private defaultsCollected = false;

  /**
   * A counter in this registry, for a subclass's own metrics:
   * `readonly payments = this.counter('payments_total', 'Payments by outcome', ['outcome']);`
   */
  protected counter<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
  ): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /**
   * A counter of `what` by one label whose values are those of an `as const` object, listed in the help (so the
   * help never drifts from the values): `this.counterBy('provider_charges_total', 'POST /v1/charges calls',
   * 'outcome', EffectOutcome)` has the help `POST /v1/charges calls by outcome (created, replayed, rejected)`.
   */
  protected counterBy<L extends string>(
    name: string,
    what: string,
    label: L,
    values: Readonly<Record<string, string>>,
  ): Counter<L> {
    return this.counter(name, `${what} by ${label} (${Object.values(values).join(', ')})`, [label]);
  }

  /**
   * `idempotency_events_total`, the coordinator's events by `type` (`hit`, `miss`, `in_progress`...), for an app
   * that runs a coordinator: its `onEvent` increments it.
   */
  protected idempotencyEventCounter(): Counter<'type'> {
    return this.counterBy(
      'idempotency_events_total',
      'Idempotency coordinator events',
      'type',
      IdempotencyEventType,
    );
  }

  /** A histogram in this registry (seconds), for a subclass's own metrics. */
  protected histogram<L extends string = never>(
    name: string,
    help: string,
    buckets: readonly number[],
    labelNames: readonly L[] = [],
  ): Histogram<L> {
    return new Histogram({ name, help, buckets: [...buckets], labelNames, registers: [this.registry] });
  }

  /**
   * A gauge in this registry whose value is read at every scrape, for a number that lives elsewhere (a queue's
   * length in Redis, the same for every replica). `read` resolving `undefined` keeps the last value: a store away at
   * scrape time must not fail the whole scrape.
   */
  gaugeReadOnScrape(name: string, help: string, read: () => Promise<number | undefined>): Gauge {
    return new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        const value = await read();
        if (value !== undefined) this.set(value);
      },
    });
  }

  /**
   * Adds Node's default metrics (process, heap, event loop) to the registry; idempotent. Not done in the
   * constructor: a subclass's fields are registered after it, and the scrape lists metrics in registration order
   * (the app's own before the defaults, as they always were).
   */
  collectDefaultMetrics(): this {
    if (!this.defaultsCollected) collectDefaultMetrics({ register: this.registry });
    this.defaultsCollected = true;
    return this;
  }
}
