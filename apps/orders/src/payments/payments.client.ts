import { Inject, Injectable } from '@nestjs/common';
import {
  HOP_DEADLINE_MARGIN_MS,
  createServiceClient,
  type ServiceClient,
  type ServiceResponse,
} from '@retry-safe/http-client';
import { internalAuthorization, type ChainContext } from '@retry-safe/app-shell/http';
import type { PaymentCommand } from '@retry-safe/contracts';
import { formatIdempotencyKey } from '@retry-safe/idempotency';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';
import { MetricsService } from '../metrics/metrics.service.js';

/**
 * The orders service's client of payments (`PAYMENTS_URL`, round robin over several replicas, one per attempt):
 * retries network errors and 502/503/504 with backoff inside the chain's deadline, with the same key on every
 * attempt, within the client's retry budget; never an answer payments marked `x-retry-exhausted` (e.g. the
 * provider throttling: the client retries after `Retry-After`). Each attempt propagates its own deadline less a
 * margin. Answers (2xx and 4xx) are returned for the controller to relay; `signal` aborts the call.
 */
@Injectable()
export class PaymentsClient {
  private readonly client: ServiceClient;

  constructor(@Inject(ORDERS_CONFIG) config: OrdersConfig, metrics: MetricsService) {
    this.client = createServiceClient({
      name: 'payments',
      baseURLs: config.paymentsUrls,
      retries: config.upstream.retries,
      attemptTimeoutMs: config.upstream.attemptTimeoutMs,
      attemptDeadlineMarginMs: HOP_DEADLINE_MARGIN_MS,
      defaultBudgetMs: config.requestBudgetMs,
      // Payments takes the tenant from the command only from a caller with the internal credential.
      headers: internalAuthorization(config.internalToken),
      onAttempt: () => metrics.upstreamAttempts.inc({ upstream: 'payments' }),
      onRetry: (retry) =>
        metrics.upstreamRetries.inc({
          upstream: 'payments',
          reason: String(retry.status ?? retry.errorCode ?? 'error'),
        }),
    });
  }

  /** `POST /v1/payments` with the client's key, in the wire form between services. */
  charge(
    payment: PaymentCommand,
    idempotencyKey: string,
    chain: ChainContext,
    signal?: AbortSignal,
  ): Promise<ServiceResponse<unknown>> {
    return this.client.post('/v1/payments', payment, {
      signal,
      idempotencyKey: formatIdempotencyKey(idempotencyKey),
      requestId: chain.requestId,
      deadline: chain.deadline,
    });
  }
}
