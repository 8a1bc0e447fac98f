/**
 * The in-flight table (issue 3), run from its shared definition (scenarios/src/definitions/keys.scenario.ts, the same code the
 * runner prints): a second request with the same key arrives while the first is held inside the provider call.
 * What payments does with it is its in-flight mode, switched on the running stack with `PUT /__config`:
 *
 * | mode  | provider charges | the second request gets         |
 * |-------|------------------|---------------------------------|
 * | run   | 2                | its own Charge (the hazard)     |
 * | wait  | 1                | the first one's Charge, replayed |
 * | raise | 1                | 409 payment_in_progress         |
 *
 * The `run` row turns provider dedup off: with it on, the provider would hide the duplicate the mode causes.
 */
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import {
  keysScenario,
  stackTarget,
  type ScenarioTarget,
  startStack,
  type Stack,
} from '@retry-safe/scenarios';
import { itRunsEveryRow } from '../support/scenario-rows.js';
import { expectReplayOf } from '../support/client.js';

const CHARGES: Record<string, number> = { run: 2, wait: 1, raise: 1 };

describe('in flight: a duplicate while the first request is inside the provider call', () => {
  let stack: Stack;
  let target: ScenarioTarget;

  beforeAll(async () => {
    // Start-up settings that differ from every row's: each row's PUT /__config must be what takes effect.
    stack = await startStack({
      payments: { IDEMPOTENCY_IN_FLIGHT: 'raise' },
      provider: { PROVIDER_DEDUP: 'on' },
    });
    target = stackTarget(stack);
  });
  afterAll(async () => {
    await target?.reset();
    await stack?.close();
  });

  itRunsEveryRow(
    keysScenario,
    [
      ['run', '201, a second Charge', '2'],
      ['wait', "201, the first's Charge (replayed)", '1'],
      ['raise', '409 payment_in_progress', '1'],
    ],
    'IDEMPOTENCY_IN_FLIGHT=%s: the measured row is the documented one',
    () => target,
    ({ first, second, ledger, paymentsRequests }, { design: mode }, result) => {
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      switch (mode) {
        case 'run':
          // Both ran the action: two charges, two different Charges.
          expect(second.status).toBe(201);
          expect(second.body.id).not.toBe(first.body.id);
          break;
        case 'wait':
          // The second waited for the first and got its Charge.
          expectReplayOf(second, first);
          break;
        case 'raise':
          expect(second.status).toBe(409);
          expect(second.headers['retry-after']).toBe('1');
          expect(second.body).toMatchObject({ status: 409, code: 'payment_in_progress' });
          break;
      }
      expect(ledger.calls).toBe(CHARGES[mode]);
      expect(ledger.charges).toHaveLength(CHARGES[mode] as number);
      // Each request reached payments exactly once: the hops do not retry a 409 or a held call.
      expect(paymentsRequests).toBe(2);
      // The diagram shows the held provider call and both requests.
      expect(result.diagram).toContain('held 2500 ms before its handler (delay fault)');
      expect(result.diagram?.match(/C->>G: POST/g)).toHaveLength(2);
    },
  );
});
