import { Inject, Injectable } from '@nestjs/common';
import {
  HOP_DEADLINE_MARGIN_MS,
  createServiceClient,
  type ServiceClient,
  type ServiceResponse,
} from '@retry-safe/http-client';
import { internalAuthorization } from '@retry-safe/app-shell/http';
import { HttpMetrics } from '@retry-safe/app-shell/telemetry';
import { ChainHeader } from '@retry-safe/contracts/http';
import { formatIdempotencyKey } from '@retry-safe/idempotency';
import type { Caller } from '../auth/caller.decorator.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config.js';
import { PAYMENT_KEYS, type PaymentKeys } from './payment-keys.js';

/** A payment as the gateway forwards it (orders adds nothing but the hop). */
export interface PaymentRequest {
  readonly orderId: string;
  readonly amount: number;
  readonly currency: string;
}

/** A new order as the gateway forwards it. */
export interface OrderCreateRequest {
  readonly amount: number;
  readonly currency: string;
}

/** A page request of the tenant's orders. */
export interface OrderListRequest {
  readonly limit: number;
  readonly cursor?: string;
}

/** An invoice request as the gateway forwards it. */
export interface InvoiceRequest {
  readonly orderId: string;
  readonly version: number;
  readonly email: string;
}

/**
 * The gateway's client of the orders service (`ORDERS_URL`, round robin over several replicas, one per attempt):
 * retries network errors and 502/503/504 with backoff inside the request's deadline (`GATEWAY_DEADLINE_MS`), within
 * the client's retry budget, and never an answer orders marked `x-retry-exhausted` (orders already retried it). Each
 * attempt propagates its own deadline less a margin, so orders times out first. Answers (2xx and 4xx) are returned
 * for the controller to relay; failures that outlive the retries throw the http-client's errors. A client that
 * disconnects aborts the call (`signal`). A payment carries its key as {@link PAYMENT_KEYS} says.
 */
@Injectable()
export class OrdersClient {
  private readonly client: ServiceClient;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    metrics: HttpMetrics,
    // How a payment's attempts carry its key (the key mode in force: start-up, or a scenario's `PUT /__config`).
    @Inject(PAYMENT_KEYS) private readonly paymentKeys: PaymentKeys,
  ) {
    this.client = createServiceClient({
      name: 'orders',
      baseURLs: config.ordersUrls,
      attemptTimeoutMs: config.upstream.attemptTimeoutMs,
      attemptDeadlineMarginMs: HOP_DEADLINE_MARGIN_MS,
      defaultBudgetMs: config.deadlineMs,
      // Orders trusts the tenant header only from a caller with the internal credential.
      headers: internalAuthorization(config.internalToken),
      onAttempt: () => metrics.upstreamAttempts.inc({ upstream: 'orders' }),
      retries: config.upstream.retries,
      onRetry: (retry) =>
        metrics.upstreamRetries.inc({
          upstream: 'orders',
          reason: String(retry.status ?? retry.errorCode ?? 'error'),
        }),
    });
  }

  /** `POST /v1/orders/{orderId}/payments` with the client's key (or, in regenerate mode, a new key per attempt). */
  createPayment(
    payment: PaymentRequest,
    idempotencyKey: string,
    context: Caller,
    signal?: AbortSignal,
  ): Promise<ServiceResponse<unknown>> {
    return this.client.post(
      `/v1/orders/${encodeURIComponent(payment.orderId)}/payments`,
      { amount: payment.amount, currency: payment.currency },
      { ...this.hop(context), ...this.paymentKeys.keyOptions(idempotencyKey, context), signal },
    );
  }

  /** `POST /v1/orders` with the client's key: orders creates the order once per key (201, replayed after). */
  createOrder(
    order: OrderCreateRequest,
    idempotencyKey: string,
    context: Caller,
  ): Promise<ServiceResponse<unknown>> {
    return this.client.post(
      '/v1/orders',
      { amount: order.amount, currency: order.currency },
      { ...this.hop(context), idempotencyKey: formatIdempotencyKey(idempotencyKey) },
    );
  }

  /** `GET /v1/orders/{orderId}` of the caller's tenant. */
  getOrder(orderId: string, context: Caller): Promise<ServiceResponse<unknown>> {
    return this.client.get(`/v1/orders/${encodeURIComponent(orderId)}`, this.hop(context));
  }

  /** `GET /v1/orders?limit=&cursor=` of the caller's tenant. */
  listOrders(page: OrderListRequest, context: Caller): Promise<ServiceResponse<unknown>> {
    const query = new URLSearchParams({ limit: String(page.limit) });
    if (page.cursor !== undefined) query.set('cursor', page.cursor);
    return this.client.get(`/v1/orders?${query.toString()}`, this.hop(context));
  }

  /**
   * `POST /v1/orders/{orderId}/invoices`: orders enqueues a job and answers 202 `{deliveryId}`. It carries no key,
   * so it is sent once: a failure goes to the client, whose retry publishes another delivery of the same invoice.
   */
  async requestInvoice(invoice: InvoiceRequest, context: Caller): Promise<ServiceResponse<unknown>> {
    return this.client.post(
      `/v1/orders/${encodeURIComponent(invoice.orderId)}/invoices`,
      { version: invoice.version, email: invoice.email },
      this.hop(context),
    );
  }

  /** What every call to orders carries: the request id, the deadline and the authenticated tenant. */
  private hop(context: Caller): { requestId: string; deadline: number; headers: Record<string, string> } {
    return {
      requestId: context.requestId,
      deadline: Date.now() + this.config.deadlineMs,
      headers: { [ChainHeader.Tenant]: context.tenantId },
    };
  }
}
