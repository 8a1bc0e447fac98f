import { Inject, Injectable } from '@nestjs/common';
import {
  createServiceClient,
  isHttpClientError,
  retryAfterMs,
  type ServiceClient,
} from '@retry-safe/http-client';
import { formatIdempotencyKey } from '@retry-safe/idempotency';
import { z } from 'zod';
import {
  MailProviderRejectedError,
  MailProviderThrottledError,
  MailProviderUnavailableError,
} from '../common/worker-errors.js';
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

// 4xx answers that say "not now" rather than "never": the same request may succeed later.
const TRANSIENT_4XX: ReadonlySet<number> = new Set([408, 425]);

/**
 * The mail provider's API (`POST /v1/emails`) over `@retry-safe/http-client`. Its retries on network errors and
 * 5xx are safe because every attempt carries the same `Idempotency-Key`. It sorts the answers for the job's retry
 * policy: 429 is throttling, 408 and 425 are transient like 5xx, any other 4xx (400, 422...) is a refusal.
 */
@Injectable()
export class MailProviderClient {
  private readonly http: ServiceClient;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.http = createServiceClient({
      name: 'mail-provider',
      baseURL: config.mailProvider.url,
      attemptTimeoutMs: config.mailProvider.timeoutMs,
      retries: 2,
      defaultBudgetMs: config.mailProvider.timeoutMs * 3,
    });
  }

  /**
   * Sends one email and returns the provider's receipt.
   * @throws {@link MailProviderThrottledError} on 429; {@link MailProviderRejectedError} on another 4xx but 408
   * and 425; {@link MailProviderUnavailableError} on those, when the client's retries are spent, or when the answer
   * is not a receipt.
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
    if (response.status === 429) {
      const hint = retryAfterMs(response.headers['retry-after']);
      throw new MailProviderThrottledError(hint > 0 ? hint : undefined);
    }
    if (TRANSIENT_4XX.has(response.status)) {
      throw new MailProviderUnavailableError(`answered ${response.status}`, { status: response.status });
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
