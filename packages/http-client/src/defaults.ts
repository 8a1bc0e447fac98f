/** The least time left before a deadline for an attempt to start (`minAttemptMs`'s default). */
export const DEFAULT_MIN_ATTEMPT_MS = 50;

/**
 * What each of our hops takes off the deadline it propagates per attempt (`attemptDeadlineMarginMs`): time for
 * the next hop's answer, or its own 504, to travel back before this hop's attempt times out.
 */
export const HOP_DEADLINE_MARGIN_MS = 100;
