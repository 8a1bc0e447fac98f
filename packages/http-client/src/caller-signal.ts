import type { ServerResponse } from 'node:http';

/**
 * An `AbortSignal` that fires when the caller of this request goes away before its answer was sent (its
 * connection closed: a client that gave up, an upstream hop whose attempt timed out or was itself aborted). Give
 * it to the downstream calls made for this request, so that a hop stops working, and retrying, for nobody.
 *
 * Do not give it to a call whose abandonment would cost more than finishing it: payments never abandons a
 * provider charge that started (its lease covers the charge; the caller's retry gets the stored result).
 */
export function signalWhenCallerLeaves(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    // `close` also follows a complete answer; only an answer that did not finish means the caller left.
    if (!res.writableFinished)
      controller.abort(new Error('the caller closed the connection before the answer'));
  });
  return controller.signal;
}
