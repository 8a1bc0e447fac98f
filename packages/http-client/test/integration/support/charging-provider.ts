import type { IncomingMessage, ServerResponse } from 'node:http';
import { IDEMPOTENCY_KEY_HEADER } from '../../../src/index.js';
import { json, reset, type Responder } from './recording-server.js';

/** How the provider loses the answer to the first request, after charging it. */
export type LostAnswer = 'reset' | 'late';

/** A provider's charges: each request charges, except one whose `Idempotency-Key` was charged before. */
export interface ChargingProvider {
  respond: Responder;
  /** The ids of the charges made, in order. */
  charges: string[];
}

/**
 * A payment provider's `POST /v1/charges` as the tests need it: a keyed request charges once per key (a repeat
 * gets the first charge back), a keyless one charges every time. The first request is charged and its answer
 * lost: the connection reset (`reset`), or the answer sent after 1 s (`late`), after the client's timeout.
 */
export function chargingProvider(lost: LostAnswer): ChargingProvider {
  const charges: string[] = [];
  const byKey = new Map<string, string>();
  const respond = (n: number, req: IncomingMessage, res: ServerResponse): void => {
    const key = req.headers[IDEMPOTENCY_KEY_HEADER];
    let id = typeof key === 'string' ? byKey.get(key) : undefined;
    if (id === undefined) {
      id = `ch_${charges.length + 1}`;
      charges.push(id);
      if (typeof key === 'string') byKey.set(key, id);
    }
    const charge = { id };
    if (n > 1) return json(res, 201, charge);
    if (lost === 'reset') return reset(req);
    setTimeout(() => json(res, 201, charge), 1000);
  };
  return { respond, charges };
}
