import type { ProblemExceptionFilterOptions } from '@retry-safe/app-shell/http';
import { ProviderErrorCode } from './provider-errors.js';

/**
 * The provider's own error code and the problem it becomes (its API's, not its callers'); the shell answers the
 * request errors (400 `validation_failed`; `idempotency_key_missing`, `idempotency_key_invalid` through the library's
 * mapping).
 */
export const PROVIDER_PROBLEMS: ProblemExceptionFilterOptions = {
  serviceName: 'The simulator',
  codes: {
    // 422 as the IETF idempotency-key draft says (Stripe itself answers 400 here).
    [ProviderErrorCode.IdempotencyKeyReused]: {
      status: 422,
      title: 'Idempotency-Key reused with different parameters',
    },
  },
};
