import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  parseDuration,
  type Codec,
  type CoordinateRequest,
  type IdempotentCallSettings,
} from '@retry-safe/idempotency';
import type { IdempotentMethodOptions, IdempotentSettingsProvider } from '@retry-safe/idempotency/nest';
import { ORDERS_POOL, ORDERS_TRANSACTIONS } from '../database/database.module.js';
import { ORDERS_CONFIG, type OrdersConfig } from './orders-config.js';

/** What names one record of orders: its operation, key, codec and fingerprint (the settings are the provider's). */
export type RecordOf<T> = Pick<CoordinateRequest<T>, 'operation' | 'key' | 'codec' | 'fingerprint'>;

/**
 * The idempotency settings of every record orders keeps (an order's creation, a Charge's application, the
 * admission's question to the key's record): the one provider of them, asked on every call. `IDEMPOTENCY_TTL_MS`,
 * and `IDEMPOTENCY_ENABLED`, the benchmark switch, which is the library's own off switch (`enabled: false`: the
 * write runs unprotected, no record read or written), not a branch of the app's.
 */
@Injectable()
export class OrdersIdempotencySettings implements IdempotentSettingsProvider<[]>, OnModuleInit {
  constructor(@Inject(ORDERS_CONFIG) private readonly config: OrdersConfig) {}

  onModuleInit(): void {
    if (this.config.idempotency.enabled) return;
    new Logger(OrdersIdempotencySettings.name).warn({
      msg: 'IDEMPOTENCY_ENABLED=false: BENCHMARK SWITCH. Orders are created and charges applied with no processing record, so a retry creates a second order. Never run this in production.',
    });
  }

  idempotencySettings(): IdempotentCallSettings {
    return { enabled: this.config.idempotency.enabled, ttl: this.config.idempotency.ttlMs };
  }

  /** How long a record (and a payment's reservation, which lasts as long as its key's record) is kept, in ms. */
  ttlMs(): number {
    return this.msOf(this.idempotencySettings().ttl);
  }

  /** The coordinator's request for `record` with the settings in force. */
  request<T>(record: RecordOf<T>): CoordinateRequest<T> {
    const { enabled, ttl } = this.idempotencySettings();
    return { ...record, ttlMs: this.msOf(ttl), enabled: enabled !== false };
  }

  private msOf(ttl: IdempotentCallSettings['ttl']): number {
    return parseDuration(ttl ?? this.config.idempotency.ttlMs, 'ttl');
  }
}

/**
 * The `@IdempotentMethod()` options of a write of orders whose arguments carry its {@link RecordOf} at `recordAt`
 * (the callers build it: operation per tenant, key, fingerprint of the parameters), stored with `codec`, with the
 * settings of {@link OrdersIdempotencySettings}. The write adds its form: `runInTransaction` or `transaction`.
 */
export function recordedWrite<Args extends unknown[], T>(
  recordAt: number,
  codec: Codec<T>,
): IdempotentMethodOptions<Args, T> {
  const recordOf = (args: Args): RecordOf<T> => args[recordAt] as RecordOf<T>;
  return {
    operation: (...args) => recordOf(args).operation,
    key: (...args) => recordOf(args).key,
    fingerprint: (...args) => recordOf(args).fingerprint,
    codec,
    settingsProvider: OrdersIdempotencySettings,
  };
}

/**
 * {@link recordedWrite} in the library's one-statement form: the write declared with `context.write()`, run with its
 * completed record in one statement on the orders pool, or after the claim in a transaction of the orders' runner.
 */
export function recordedStatement<Args extends unknown[], T>(
  recordAt: number,
  codec: Codec<T>,
): IdempotentMethodOptions<Args, T> {
  return {
    ...recordedWrite(recordAt, codec),
    inOneStatement: ORDERS_POOL,
    runInTransaction: ORDERS_TRANSACTIONS,
  };
}
