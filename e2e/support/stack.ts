/** One stack per suite, and the provider dedup on/off tables the failure suites run on it. */
import { afterAll, beforeAll, beforeEach, it } from '@jest/globals';
import { startStack, type Stack, type StackOptions } from '@retry-safe/scenarios';

/**
 * Starts one stack for the enclosing `describe` (closed after it) and, unless `resetEach` is false, resets its
 * faults, counters and ledgers before each test. Returns the running stack, for the tests to call.
 */
export function useStack(options: StackOptions = {}, { resetEach = true } = {}): () => Stack {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack(options);
  });
  afterAll(async () => {
    await stack?.close();
  });
  if (resetEach) {
    beforeEach(async () => {
      await stack?.reset();
    });
  }
  return () => {
    if (stack === undefined) throw new Error('the stack is not running (beforeAll failed?)');
    return stack;
  };
}

/** A row of a provider dedup table: `PROVIDER_DEDUP` for the row, and what the row expects. */
export type DedupRow = { readonly dedup: 'on' | 'off' };

/**
 * One test per row (`title` may name the row's fields, `$dedup`...): provider-sim restarted with the row's
 * `PROVIDER_DEDUP` (a no-op when it already runs so), the stack reset, then `body` with the stack and the row.
 */
export function itPerProviderDedup<Row extends DedupRow>(
  stack: () => Stack,
  rows: readonly Row[],
  title: string,
  body: (stack: Stack, row: Row) => Promise<void>,
): void {
  it.each([...rows])(title, async (row) => {
    const running = stack();
    await running.restart('provider', { PROVIDER_DEDUP: row.dedup });
    await running.reset();
    await body(running, row);
  });
}
