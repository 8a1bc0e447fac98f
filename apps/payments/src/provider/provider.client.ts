import { Inject, Injectable } from '@nestjs/common';
import { createServiceClient, type ServiceClient } from '@retry-safe/http-client';
import { type ChainContext } from '@retry-safe/app-shell';
import { isProblem } from '@retry-safe/contracts/http';
import { formatIdempotencyKey } from '@retry-safe/idempotency';
import { PaymentRejectedError } from '../common/payments-errors.js';
import { PAYMENTS_CONFIG, type PaymentsConfig } from '../config/payments-config.js';
import { MetricsService } from '../metrics/metrics.service.js';

/** What the provider answers to `POST /v1/charges`. */
export interface ProviderCharge {
  id: string;
  amount: number;
  currency: string;
  status: string;
}

/** A charge as payments asks for it. */
export interface ProviderChargeRequest {
  readonly amount: number;
  readonly currency: string;
  /** Our reference for reconciliation (the order id). */
  readonly reference: string;
}

/**
 * Client of the payment provider (`PROVIDER_URL`). Every call carries the provider key, so the provider can
 * deduplicate a charge whose answer was lost. No retries by default (`PROVIDER_RETRIES=0`): a failure ends the
 * coordinated action, which releases the reservation, and the caller's retry (same client key, hence same provider
 * key) is the retry.
 */
@Injectable()
export class ProviderClient {
  private readonly client: ServiceClient;

  constructor(@Inject(PAYMENTS_CONFIG) config: PaymentsConfig, metrics: MetricsService) {
    this.client = createServiceClient({
      baseURL: config.provider.url,
      retries: config.provider.retries,
      attemptTimeoutMs: config.provider.timeoutMs,
      defaultBudgetMs: config.requestBudgetMs,
      onAttempt: () => metrics.upstreamAttempts.inc({ upstream: 'provider' }),
      onRetry: (retry) =>
        metrics.upstreamRetries.inc({
          upstream: 'provider',
          reason: String(retry.status ?? retry.errorCode ?? 'error'),
        }),
    });
  }

  /**
   * Charges through the provider with `providerKey` as its `Idempotency-Key`.
   * @throws {@link PaymentRejectedError} for a 4xx; the http-client's errors when the provider is unreachable.
   */
  async charge(
    request: ProviderChargeRequest,
    providerKey: string,
    chain: ChainContext,
  ): Promise<ProviderCharge> {
    const response = await this.client.post<ProviderCharge>('/v1/charges', request, {
      idempotencyKey: formatIdempotencyKey(providerKey),
      requestId: chain.requestId,
      deadline: chain.deadline,
    });
    if (!response.ok) {
      throw new PaymentRejectedError(
        response.status,
        isProblem(response.data) ? response.data.code : undefined,
      );
    }
    return response.data;
  }
}
