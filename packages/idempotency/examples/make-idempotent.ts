import { Redis } from 'ioredis';
import { IdempotencyCoordinator, makeIdempotentWithOutcome } from '@retry-safe/idempotency';
import { RedisIdempotencyStore } from '@retry-safe/idempotency/redis';

interface RefundCommand {
  readonly tenant: string;
  readonly requestId: string;
  readonly chargeId: string;
  readonly amount: number;
}

const coordinator = new IdempotencyCoordinator(
  new RedisIdempotencyStore(new Redis('redis://127.0.0.1:6379')),
);
const flags = { idempotency: true, inFlight: 'raise' as const };

/** Any async function, made idempotent: no framework, the settings read on every call. */
export const refund = makeIdempotentWithOutcome(
  coordinator,
  async ({ key, fencingToken, signal }, command: RefundCommand) => {
    signal.throwIfAborted();
    return { refundId: `re_${key}_${fencingToken}`, amount: command.amount };
  },
  {
    operation: (command) => `payment.refund.${command.tenant}`,
    key: (command) => command.requestId,
    fingerprint: (command) => ({ chargeId: command.chargeId, amount: command.amount }),
    ttl: '24h',
    // enabled: false is the off switch: the action runs unprotected and the outcome says so.
    settings: () => ({ enabled: flags.idempotency, inFlight: flags.inFlight }),
  },
);

// const { value, outcome } = await refund(command): outcome is 'executed', 'replayed' or 'unprotected'.
