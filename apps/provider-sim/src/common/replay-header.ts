/** Set on a response that repeats an earlier result for the same key (a widespread convention, e.g. Stripe). */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
