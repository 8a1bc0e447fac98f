import { expect, it } from '@jest/globals';
import type { SentProblem } from '../capture-problem.js';

/** A row of {@link itMapsToProblems}: an error, and the status and `code` the filter must answer it with. */
export type ProblemCase = readonly [error: Error, status: number, code: string];

/**
 * One test per row: the filter (through `catchWith`, e.g. a `captureProblem` call) answers the error with the
 * status, `application/problem+json` and the whole RFC 9457 body: `type` from the code, a title, the status, the
 * error's message as `detail`, and the code. Each app's spec keeps its own rows.
 */
export function itMapsToProblems(
  catchWith: (error: unknown) => SentProblem,
  cases: readonly ProblemCase[],
): void {
  it.each(cases.map((row) => [...row] as [Error, number, string]))(
    'maps %p to %i %s',
    (error, status, code) => {
      const sent = catchWith(error);
      expect(sent.status).toBe(status);
      expect(sent.type).toBe('application/problem+json');
      expect(sent.body).toEqual({
        type: `urn:retry-safe:problem:${code}`,
        title: expect.any(String),
        status,
        detail: error.message,
        code,
      });
    },
  );
}
