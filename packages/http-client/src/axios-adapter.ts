import { AxiosError, type AxiosAdapter, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { sendAttempt } from './attempt.js';
import { stateOf, type CallState } from './call-state.js';
import { DEADLINE_HEADER, IDEMPOTENCY_KEY_HEADER } from './headers.js';
import { pathOn, type Target } from './target.js';
import { tracedAttempt, type ClientTracing } from './tracing.js';

/** Where and for how long one attempt goes, decided when it starts. */
export interface AttemptPlan {
  readonly target: Target;
  readonly timeoutMs: number;
  /** The `x-request-deadline` this attempt sends. */
  readonly sentDeadline: number;
}

/**
 * The axios adapter of a client: axios and axios-retry decide what is sent and whether it is sent again; this
 * sends one attempt on the target's keep-alive agent and settles it with the instance's `validateStatus` (a 5xx
 * rejects with `ERR_BAD_RESPONSE`, for axios-retry to see). Axios calls it once per attempt, retries included, so
 * it is where an attempt starts: `plan` counts it, picks its target (round robin) and its timeout from the
 * deadline, and reports it. It sends the call's header record and body (built once per call) plus this attempt's
 * deadline and trace context, instead of serialising axios' header objects again on every attempt.
 */
export function serviceAdapter(
  tracing: ClientTracing,
  plan: (state: CallState) => AttemptPlan,
): AxiosAdapter {
  return async (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
    const state = stateOf(config);
    if (state === undefined) {
      throw new AxiosError('a request without a call state', AxiosError.ERR_BAD_OPTION, config);
    }
    const { target, timeoutMs, sentDeadline } = plan(state);
    state.lastResponse = undefined;
    const path = pathOn(target, state.path);
    const headers: Record<string, string> = { ...state.headers, [DEADLINE_HEADER]: String(sentDeadline) };
    if (state.keyPerAttempt !== undefined && state.attemptKey !== undefined) {
      headers[IDEMPOTENCY_KEY_HEADER] = state.attemptKey;
    }
    const signal = config.signal as AbortSignal | undefined;
    const send = () =>
      sendAttempt({ target, path, method: state.method, headers, body: state.body, timeoutMs, signal });
    let answer;
    try {
      answer = await tracedAttempt(tracing, state, target, path, headers, send);
    } catch (error) {
      // axios-retry retries from the error's config: without it, a failure is never retried.
      if (error instanceof AxiosError) error.config = config;
      throw error;
    }
    state.lastResponse = answer;
    const response: AxiosResponse = {
      data: answer.data,
      status: answer.status,
      statusText: '',
      // The answer's headers stay in the call's record (`state.lastResponse`), where the client reads them: axios
      // would copy a record given here into an AxiosHeaders on every attempt, a cost for nobody.
      headers: {},
      config,
      request: undefined,
    };
    if (config.validateStatus?.(answer.status) ?? true) return response;
    throw new AxiosError(
      `Request failed with status code ${answer.status}`,
      AxiosError.ERR_BAD_RESPONSE,
      config,
      undefined,
      response,
    );
  };
}
