import {
  Injectable,
  Logger,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { RmqContext } from '@nestjs/microservices';
import { IdempotencyErrorCode, isIdempotencyError } from '@retry-safe/idempotency';
import { catchError, throwError, type Observable } from 'rxjs';

/** Refusals @Idempotent() makes before the handler runs: no handler acknowledged these messages. */
const REFUSED_BEFORE_HANDLER: ReadonlySet<string> = new Set([
  IdempotencyErrorCode.InvalidKey, // no key, or one that is no key
  IdempotencyErrorCode.KeyReuse, // the key with another payload
  IdempotencyErrorCode.InProgress, // a copy of a message still being handled
]);

/**
 * Settles the RabbitMQ messages @Idempotent() refused (the consumer runs with `noAck: false`, and only a handler
 * that ran acknowledges its message). Left alone, a refused message would stay unacknowledged until the connection
 * closes, and then come back, refused again, on every reconnection. Registered app-wide, so it runs around
 * @Idempotent() and sees its refusals; the error still reaches the caller as it was.
 */
@Injectable()
export class RefusedMessagesInterceptor implements NestInterceptor {
  private readonly logger = new Logger('RefusedMessages');

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        const ctx: unknown = context.switchToRpc().getContext();
        if (
          ctx instanceof RmqContext &&
          isIdempotencyError(error) &&
          REFUSED_BEFORE_HANDLER.has(error.code)
        ) {
          try {
            this.settle(ctx, error.code);
          } catch {
            // The channel closed meanwhile: RabbitMQ puts the message back by itself.
          }
        }
        return throwError(() => error);
      }),
    );
  }

  private settle(ctx: RmqContext, code: string): void {
    const message = ctx.getMessage() as { properties: { replyTo?: string } };
    const channel = ctx.getChannelRef() as {
      ack(message: object): void;
      nack(message: object, allUpTo?: boolean, requeue?: boolean): void;
    };
    if (message.properties.replyTo !== undefined) {
      // A request: its caller gets the error (with `retryAfter` for a copy in flight) and decides to send again.
      channel.ack(message);
    } else if (code === IdempotencyErrorCode.InProgress) {
      // An event whose first copy still ran after this one's wait: back to the queue, to be replayed once done.
      channel.nack(message, false, true);
    } else {
      // An event that can never succeed: dropped, or dead-lettered where the queue has a dead-letter exchange.
      this.logger.error(`event ${ctx.getPattern()} refused (${code}): rejected`);
      channel.nack(message, false, false);
    }
  }
}
