/** The two races of `pnpm bench:peers`: many calls with one key, and a duplicate that outlives the lease. */
import { setTimeout as sleep } from 'node:timers/promises';
import { newCharge, type Charge, type ChargeAction, type Peer } from '../peers/peer.js';
import {
  freshKey,
  PLAN,
  type ContentionResult,
  type StaleOwnerResult,
  type StoredResult,
} from './peer-plan.js';

/** 100 calls with one key, all started together; the action takes 50 ms, as a provider call would. */
export async function measureContention(peer: Peer): Promise<ContentionResult> {
  const key = freshKey('contention');
  let executions = 0;
  const action: ChargeAction = async () => {
    executions++;
    await sleep(PLAN.contentionActionMs);
    return newCharge();
  };
  const settled = await Promise.allSettled(
    Array.from({ length: PLAN.contentionCalls }, () => peer.execute(key, action)),
  );
  await peer.drain?.();
  const errors: Record<string, number> = {};
  const charges = new Set<string>();
  for (const outcome of settled) {
    if (outcome.status === 'fulfilled') charges.add(outcome.value.id);
    else {
      const label = errorLabel(outcome.reason);
      errors[label] = (errors[label] ?? 0) + 1;
    }
  }
  const fulfilled = settled.filter((outcome) => outcome.status === 'fulfilled').length;
  return {
    calls: PLAN.contentionCalls,
    executions,
    fulfilled,
    rejected: PLAN.contentionCalls - fulfilled,
    errors,
    distinctChargesReturned: charges.size,
  };
}

/**
 * The first owner's action outlives the lease (800 ms against 200 ms); a duplicate starts at 300 ms and finishes
 * first. Then a third call shows whose result the key now holds: a library that does not check ownership on
 * completion lets the stale first owner overwrite the newer result.
 */
export async function measureStaleOwner(peer: Peer, redisUrl: string): Promise<StaleOwnerResult> {
  const { leaseMs, firstActionMs, secondStartsAfterMs, secondActionMs } = PLAN.staleOwner;
  await peer.setup(redisUrl, { ...PLAN.settings, inProgressMs: leaseMs });
  try {
    const key = freshKey('stale');
    const owners = new Map<string, 'first' | 'second' | 'third'>();
    let executions = 0;
    const actionFor =
      (owner: 'first' | 'second', durationMs: number): ChargeAction =>
      async () => {
        executions++;
        await sleep(durationMs);
        const charge = newCharge();
        owners.set(charge.id, owner);
        return charge;
      };
    const first = peer.execute(key, actionFor('first', firstActionMs));
    await sleep(secondStartsAfterMs);
    const second = peer.execute(key, actionFor('second', secondActionMs));
    const [firstOutcome, secondOutcome] = await Promise.allSettled([first, second]);
    await peer.drain?.();

    const third = await settle(
      peer.execute(key, async () => {
        const charge = newCharge();
        owners.set(charge.id, 'third');
        return charge;
      }),
    );
    const storedOwner = third.status === 'fulfilled' ? owners.get(third.value.id) : undefined;
    const stored: StoredResult =
      storedOwner === 'first'
        ? 'first owner'
        : storedOwner === 'second'
          ? 'second owner'
          : storedOwner === 'third'
            ? 'nothing (a third call ran)'
            : 'unreadable';
    const describe = (outcome: PromiseSettledResult<Charge> | undefined): string => {
      if (!outcome) return 'n/a';
      if (outcome.status === 'rejected') return `error ${errorLabel(outcome.reason)}`;
      const owner = owners.get(outcome.value.id);
      return owner ? `${owner} owner's charge` : 'unknown charge';
    };
    return {
      leaseMs,
      inProgressExpiry: peer.capabilities.inProgressExpiry,
      executions,
      stored,
      firstCaller: describe(firstOutcome),
      secondCaller: describe(secondOutcome),
      thirdCaller: describe(third),
    };
  } finally {
    await peer.close();
  }
}

export async function settle<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
  try {
    return { status: 'fulfilled', value: await promise };
  } catch (reason) {
    return { status: 'rejected', reason };
  }
}

/** The library's error code if it has one, else the class name, else the start of the message. */
export function errorLabel(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if (error.name !== 'Error') return error.name;
    return error.message.slice(0, 60);
  }
  return String(error);
}
