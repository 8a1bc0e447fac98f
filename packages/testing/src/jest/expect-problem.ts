import { expect } from '@jest/globals';

/** What {@link expectProblemAnswer} reads of an HTTP answer (a supertest response fits). */
export interface ProblemAnswer {
  status: number;
  headers: Record<string, unknown>;
  body?: { code?: unknown };
}

/**
 * Asserts that an answer is an RFC 9457 problem with this status and `code`, sent as
 * `application/problem+json; charset=utf-8` (Express adds the charset). The three are compared in one assertion so
 * that a failure shows all of them at once.
 */
export function expectProblemAnswer(res: ProblemAnswer, status: number, code: string): void {
  expect([res.status, res.headers['content-type'], res.body?.code]).toEqual([
    status,
    'application/problem+json; charset=utf-8',
    code,
  ]);
}
