import type { ArgumentsHost, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';

/** What an exception filter sent, as {@link captureProblem} recorded it. */
export interface SentProblem {
  status?: number;
  /** The media type set with `res.type()`. */
  type?: string;
  /** The body, parsed from the JSON the filter sent. */
  body?: Record<string, unknown>;
  /** Headers set with `res.setHeader()`. */
  headers: Record<string, string>;
}

/**
 * Runs `filter.catch(error)` against an in-memory Express response (no server, no network) and returns what it
 * sent: the filter unit tests check their own error mappings with it.
 */
export function captureProblem(filter: ExceptionFilter, error: unknown): SentProblem {
  const sent: SentProblem = { headers: {} };
  const res = {
    headersSent: false,
    destroyed: false,
    setHeader: (name: string, value: string) => {
      sent.headers[name] = value;
    },
    status(code: number) {
      sent.status = code;
      return this;
    },
    type(type: string) {
      sent.type = type;
      return this;
    },
    send(body: string) {
      sent.body = JSON.parse(body) as Record<string, unknown>;
      return this;
    },
  };
  const host = {
    switchToHttp: () => ({
      getRequest: () => ({}) as Request,
      getResponse: () => res as unknown as Response,
    }),
  } as ArgumentsHost;
  filter.catch(error, host);
  return sent;
}
