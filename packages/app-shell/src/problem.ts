import { HttpStatus } from '@nestjs/common';

/** Media type of every error response (RFC 9457). */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** An RFC 9457 problem body, with the stable `code` clients switch on. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** Stable, snake_case code for clients. */
  code: string;
}

/** Problem `type` URI for a code (a URN: these types are identifiers, not pages). */
export function problemType(code: string): string {
  return `urn:retry-safe:problem:${code}`;
}

/** Builds a problem from its parts. */
export function problem(status: number, code: string, title: string, detail: string): Problem {
  return { type: problemType(code), title, status, detail, code };
}

/** True for a parsed body that looks like one of our problems (it has a numeric status and a string code). */
export function isProblem(body: unknown): body is Problem {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { code?: unknown }).code === 'string' &&
    typeof (body as { status?: unknown }).status === 'number'
  );
}

/** `Not Found` for 404, from Nest's status names. */
export function statusTitle(status: number): string {
  const name = HttpStatus[status];
  if (typeof name !== 'string') return `HTTP ${status}`;
  const words = name.toLowerCase().split('_');
  return words.map((word, i) => (i === 0 ? word.charAt(0).toUpperCase() + word.slice(1) : word)).join(' ');
}
