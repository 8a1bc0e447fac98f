import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_MIN_ATTEMPT_MS,
  UpstreamTimeoutError,
  createServiceClient,
  isHttpClientError,
  remainingMs,
  retryAfterMs,
  type ServiceClient,
} from '@retry-safe/http-client';
import { type ChainContext } from '@retry-safe/app-shell/http';
import { isProblem } from '@retry-safe/contracts/http';
import { formatIdempotencyKey } from '@retry-safe/idempotency';
import { PaymentRejectedError, ProviderUnavailableError } from '../common/payments-errors.js';
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

/** What the provider answers when it is throttling or briefly down: worth a retry later, not a refusal. */
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([408, 429, 503]);
const MAX_RETRY_AFTER_S = 60;

/** The provider's `Retry-After` (seconds or an HTTP date) in whole seconds, 1 to 60 (1 when absent or invalid). */
function retryAfterSeconds(value: string | undefined): number {
  return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(retryAfterMs(value) / 1000)));
}

/**
 * Client of the payment provider (`PROVIDER_URL`). Every call carries the provider key, so the provider can
 * deduplicate a charge whose answer was lost. No retries by default (`PROVIDER_RETRIES=0`): a failure ends the
 * coordinated action, which releases the reservation, and the caller's retry (same client key, hence same provider
 * key) is the retry.
 *
 * A charge that started is never abandoned for the caller's sake: the call gets no abort signal, and it is bounded
 * by `PROVIDER_TIMEOUT_MS` alone, not by the chain's deadline. Its lease covers it, and the caller's retry gets the
 * stored result. Only a charge with less than 50 ms left before the chain's deadline does not start.
 */
@Injectable()
export class ProviderClient {
  private readonly client: ServiceClient;
  private readonly timeoutMs: number;

  constructor(@Inject(PAYMENTS_CONFIG) config: PaymentsConfig, metrics: MetricsService) {
    this.timeoutMs = config.provider.timeoutMs;
    this.client = createServiceClient({
      name: 'provider',
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
   * @throws {@link ProviderUnavailableError} for a 429, 408 or 503 (throttling: retry later);
   *   {@link PaymentRejectedError} for any other 4xx (a permanent refusal); the http-client's errors when the
   *   provider is unreachable or answers another 5xx.
   */
  async charge(
    request: ProviderChargeRequest,
    providerKey: string,
    chain: ChainContext,
  ): Promise<ProviderCharge> {
    if (remainingMs(chain.deadline) < DEFAULT_MIN_ATTEMPT_MS) {
      throw new UpstreamTimeoutError(
        'POST /v1/charges: the caller has no time left, the charge did not start',
        {
          method: 'POST',
          path: '/v1/charges',
          attempts: 0,
        },
      );
    }
    const response = await this.client
      .post<ProviderCharge>('/v1/charges', request, {
        idempotencyKey: formatIdempotencyKey(providerKey),
        requestId: chain.requestId,
        deadline: Date.now() + this.timeoutMs,
      })
      .catch((error: unknown) => {
        const status = isHttpClientError(error) ? error.lastStatus : undefined;
        if (isHttpClientError(error) && status !== undefined && TRANSIENT_STATUSES.has(status)) {
          throw new ProviderUnavailableError(
            status,
            retryAfterSeconds(error.response?.headers['retry-after']),
            { cause: error },
          );
        }
        throw error;
      });
    if (TRANSIENT_STATUSES.has(response.status)) {
      throw new ProviderUnavailableError(response.status, retryAfterSeconds(response.headers['retry-after']));
    }
    if (!response.ok) {
      throw new PaymentRejectedError(
        response.status,
        isProblem(response.data) ? response.data.code : undefined,
      );
    }
    return response.data;
  }
}
