import {
  IdempotencyKeyMissingError as MissingKeyError,
  ServiceErrorCode,
  errorGuard,
} from '@retry-safe/app-shell';

// No bearer token, or one that maps to no tenant: the shell's 401, thrown by ApiTokenAuthenticator.
export { UnauthorizedError } from '@retry-safe/app-shell';

/** Stable codes of the gateway's own errors; the exception filter turns each into one problem response. */
export const GatewayErrorCode = {
  ...ServiceErrorCode,
} as const;
/** One of {@link GatewayErrorCode}'s values. */
export type GatewayErrorCode = (typeof GatewayErrorCode)[keyof typeof GatewayErrorCode];

/** What the gateway tells a client that sent no `Idempotency-Key` (it is the edge: say what to do). */
export const IDEMPOTENCY_KEY_MISSING_MESSAGE =
  'The Idempotency-Key header is required: send a unique key per payment and reuse it on every retry';

/** A payment without `Idempotency-Key`, with the gateway's more helpful message. */
export class IdempotencyKeyMissingError extends MissingKeyError {
  constructor() {
    super(IDEMPOTENCY_KEY_MISSING_MESSAGE);
  }
}

/** True for the gateway's own errors, recognised by `code`. */
export const isGatewayError = errorGuard(GatewayErrorCode);
