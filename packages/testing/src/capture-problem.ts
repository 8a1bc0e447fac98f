import type { ArgumentsHost, ExceptionFilter } from '@nestjs/common';

/** What an exception filter sent, as {@link captureProblem} recorded it. */
export interface SentProblem {
  status?: number;
  /** The media type set with `reply.type()`. */
  type?: string;
  /** The body, parsed from the JSON the filter sent. */
  body?: Record<string, unknown>;
  /** Headers set with `reply.header()`. */
  headers: Record<string, string>;
}

/**
 * Runs `filter.catch(error)` against an in-memory Fastify reply (no server, no network) and returns what it sent:
 * the filter unit tests check their own error mappings with it.
 */
export function captureProblem(filter: ExceptionFilter, error: unknown): SentProblem {
  const sent: SentProblem = { headers: {} };
  const res = {
    raw: { headersSent: false, destroyed: false },
    header(name: string, value: string) {
      sent.headers[name] = value;
      return this;
    },
    type(type: string) {
      sent.type = type;
      return this;
    },
    status(code: number) {
      sent.status = code;
      return this;
    },
    send(body: string) {
      sent.body = JSON.parse(body) as Record<string, unknown>;
      return this;
    },
  };
  const host = {
    switchToHttp: () => ({
      getRequest: () => ({ raw: {} }),
      getResponse: () => res,
    }),
  } as ArgumentsHost;
  filter.catch(error, host);
  return sent;
}
