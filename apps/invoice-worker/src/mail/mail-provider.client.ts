import { Inject, Injectable } from '@nestjs/common';
import { createServiceClient, isHttpClientError, type ServiceClient } from '@retry-safe/http-client';
import { formatIdempotencyKey } from '@retry-safe/idempotency';
import { z } from 'zod';
import { MailProviderRejectedError, MailProviderUnavailableError } from '../common/worker-errors.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

/** An email to send. */
export interface OutgoingEmail {
  to: string;
  subject: string;
  body: string;
}

/** The provider's answer to a send: `{"emailId": "em_<n>"}`. */
export const EmailReceiptSchema = z.object({ emailId: z.string().min(1) });
/** What the provider returns for a sent (or deduplicated) email. */
export type EmailReceipt = z.output<typeof EmailReceiptSchema>;

/** Per-send options. */
export interface SendOptions {
  /** The provider's `Idempotency-Key`: the same for every attempt and delivery of one invoice version. */
  idempotencyKey: string;
  /** Sent as `x-request-id`, to follow one delivery through the provider's logs. */
  requestId: string;
}

/**
 * The mail provider's API (`POST /v1/emails`) over `@retry-safe/http-client`. Its retries on network errors and
 * 5xx are safe because every attempt carries the same `Idempotency-Key`; a 4xx is final and never retried.
 */
@Injectable()
export class MailProviderClient {
  private readonly http: ServiceClient;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.http = createServiceClient({
      baseURL: config.mailProvider.url,
      attemptTimeoutMs: config.mailProvider.timeoutMs,
      retries: 2,
      defaultBudgetMs: config.mailProvider.timeoutMs * 3,
    });
  }

  /**
   * Sends one email and returns the provider's receipt.
   * @throws {@link MailProviderRejectedError} on 4xx; {@link MailProviderUnavailableError} when the retries are
   * spent or the answer is not a receipt.
   */
  async send(email: OutgoingEmail, options: SendOptions): Promise<EmailReceipt> {
    let response;
    try {
      response = await this.http.post<unknown>('/v1/emails', email, {
        idempotencyKey: formatIdempotencyKey(options.idempotencyKey),
        requestId: options.requestId,
      });
    } catch (error) {
      if (isHttpClientError(error)) throw new MailProviderUnavailableError(error.message, { cause: error });
      throw error;
    }
    if (!response.ok) {
      const problem = response.data as { code?: unknown; detail?: unknown } | undefined;
      throw new MailProviderRejectedError(
        response.status,
        typeof problem?.code === 'string' ? problem.code : undefined,
        typeof problem?.detail === 'string' ? problem.detail : undefined,
      );
    }
    const receipt = EmailReceiptSchema.safeParse(response.data);
    if (!receipt.success) {
      throw new MailProviderUnavailableError(
        `unexpected answer ${response.status}: ${JSON.stringify(response.data)}`,
      );
    }
    return receipt.data;
  }
}
