import { waitFor } from '@retry-safe/testing';
import { HOLD_MS, type Stack } from '@retry-safe/scenarios';

/** Makes provider-sim hold the next `POST /v1/charges` for `ms` before handling it (a `delay` fault, once). */
export async function holdNextCharge(stack: Stack, ms = HOLD_MS): Promise<void> {
  await stack.setFaults('provider', [
    { method: 'POST', path: '/v1/charges', at: 'before-handler', action: 'delay', ms, times: 1 },
  ]);
}

/** Resolves once the held charge has reached provider-sim (the delay rule fired). */
export async function chargeIsHeld(stack: Stack): Promise<void> {
  await waitFor('a charge held at the provider', async () => {
    const fired = (await stack.faults('provider')).rules[0]?.fired;
    if (fired !== 1) throw new Error(`the delay rule fired ${fired ?? 0} times`);
  });
}
