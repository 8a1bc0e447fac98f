/**
 * The `INTERNAL_TOKEN` every test stack and in-process app uses (the gateway and orders send it, orders and
 * payments require it). A test value: real deployments set their own secret.
 */
export const TEST_INTERNAL_TOKEN = 'test-internal-token-0123456789abcdef';

/** The header an internal caller sends with {@link TEST_INTERNAL_TOKEN}. */
export const TEST_INTERNAL_AUTHORIZATION = { authorization: `Bearer ${TEST_INTERNAL_TOKEN}` } as const;
