import { Inject, Injectable, Logger } from '@nestjs/common';
import { REDIS_CLIENT } from '@retry-safe/app-shell';
import type { Cluster, Redis } from 'ioredis';
import { InvoiceRateLimitedError } from '../common/orders-errors.js';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';

/**
 * GCRA (a token bucket kept as one timestamp): the tenant's "theoretical arrival time" advances by
 * `window / limit` per admitted request and may run at most `window` ahead of now, so a tenant gets `limit`
 * requests at once and then one every `window / limit`. Redis' clock decides, so replicas share one bucket.
 */
const GCRA_SCRIPT = `--[[
  Admit one request of a tenant, or say when the next one fits.

  KEYS[1]  the tenant's bucket (holds its theoretical arrival time, ms)
  ARGV[1]  emission interval: window / limit (ms, may be fractional)
  ARGV[2]  window (ms): how far ahead of now the arrival time may run

  Returns {1, 0} when admitted (the arrival time advanced, the key expires when the bucket is full again), or
  {0, retryAfterMs} when refused (nothing changed).
]]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local interval, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local tat = math.max(tonumber(redis.call('GET', KEYS[1])) or now, now)
local next = tat + interval
if next - now > window then
  return {0, math.ceil(next - now - window)}
end
redis.call('SET', KEYS[1], tostring(next), 'PX', math.max(1, math.ceil(next - now)))
return {1, 0}
`;

/** The client with the limiter's script defined on it (ioredis sends EVALSHA, EVAL after a NOSCRIPT). */
type WithGcra = (Redis | Cluster) & {
  ordersInvoiceRate(key: string, interval: string, window: string): Promise<[number, number]>;
};

/**
 * Invoice requests per tenant: at most `INVOICE_RATE_LIMIT` per `INVOICE_RATE_WINDOW_MS` (429
 * `invoice_rate_limited` past it, with when to retry). Every request is one Lua script on the shared Redis
 * client, so the bound holds across replicas. A Redis that does not answer (within `REDIS_COMMAND_TIMEOUT_MS`)
 * admits the request: the outbox exists so invoices can be asked for while Redis is away, and the versions cap
 * still bounds what one order can hold.
 */
@Injectable()
export class InvoiceRateLimiter {
  private readonly logger = new Logger(InvoiceRateLimiter.name);
  private readonly redis: WithGcra;
  private unavailable = false;

  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    @Inject(REDIS_CLIENT) redis: Redis | Cluster,
  ) {
    redis.defineCommand('ordersInvoiceRate', { numberOfKeys: 1, lua: GCRA_SCRIPT });
    this.redis = redis as WithGcra;
  }

  /** Counts one request of `tenantId`; throws {@link InvoiceRateLimitedError} when it does not fit. */
  async admit(tenantId: string): Promise<void> {
    const { limit, windowMs, keyPrefix } = this.config.invoices.rateLimit;
    let reply: [number, number];
    try {
      reply = await this.redis.ordersInvoiceRate(
        `${keyPrefix}${tenantId}`,
        String(windowMs / limit),
        String(windowMs),
      );
    } catch (error) {
      if (!this.unavailable)
        this.logger.warn({ msg: 'invoice rate limit unavailable: admitting', error: String(error) });
      this.unavailable = true;
      return;
    }
    this.unavailable = false;
    const [admitted, retryAfterMs] = reply;
    if (admitted !== 1) throw new InvoiceRateLimitedError(tenantId, retryAfterMs);
  }
}
