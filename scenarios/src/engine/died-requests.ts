/** What a diagram can still draw of the requests a killed service died in. */
import type { RequestEntry } from './target.js';

/**
 * The requests orders died in (killed at a fault point): its journal, in memory, died with the process, so what
 * is left is the gateway's entry answered 502 or 504 with no orders entry of its request id (an orders answer,
 * even a dropped one, is always journaled). Each is drawn as orders' request with no answer.
 */
export function diedInOrders(posts: readonly RequestEntry[]): Array<RequestEntry & { readonly died: true }> {
  const inOrders = new Set(posts.filter((e) => e.service === 'orders').map((e) => e.requestId));
  return posts
    .filter(
      (entry) =>
        entry.service === 'gateway' &&
        (entry.status === 502 || entry.status === 504) &&
        !inOrders.has(entry.requestId),
    )
    .map((entry) => ({
      ...entry,
      service: 'orders',
      // Inside the gateway's request, and never before the answers it waited for (the diagram's arrivals).
      startedAt: entry.startedAt + 0.001,
      endedAt: entry.endedAt - 0.001,
      status: 'aborted' as const,
      replayed: false,
      died: true as const,
    }));
}
