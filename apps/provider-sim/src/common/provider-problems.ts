import type { ProblemExceptionFilterOptions } from '@retry-safe/app-shell';
import { ProviderErrorCode } from './provider-errors.js';

/** The provider's own error codes and the problems they become (its API's, not its callers'). */
export const PROVIDER_PROBLEMS: ProblemExceptionFilterOptions = {
  serviceName: 'The simulator',
  codes: {
    [ProviderErrorCode.ValidationFailed]: { status: 400, title: 'Invalid request' },
    [ProviderErrorCode.IdempotencyKeyMissing]: { status: 400, title: 'Idempotency-Key required' },
    [ProviderErrorCode.IdempotencyKeyInvalid]: { status: 400, title: 'Invalid Idempotency-Key' },
    // 422 as the IETF idempotency-key draft says (Stripe itself answers 400 here).
    [ProviderErrorCode.IdempotencyKeyReused]: {
      status: 422,
      title: 'Idempotency-Key reused with different parameters',
    },
  },
};
