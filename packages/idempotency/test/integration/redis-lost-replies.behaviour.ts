import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { IdempotencyErrorCode, type ActionContext } from '../../src/index.js';
import { RedisIdempotencyStore } from '../../src/redis/index.js';
import { scripts, type LuaScript } from '../../src/redis/scripts.js';
import type { ProxiedRedis } from './proxied-redis.js';
import { countingAction, eventually, shardSubscribers, sleep, world, type World } from './support.js';

/**
 * Lost and slow replies that only Redis has, with TCP proxies between the store and Redis (the store-independent
 * ones are lost-replies.behaviour.ts). ioredis resends unanswered commands after it reconnects
 * (autoResendUnfulfilledCommands, on by default), so a script can run twice for one call: every script must answer
 * its own owner the same way the second time; and the pub/sub of wait mode is RESP on its own connection. Run on a
 * standalone server and on a 3-master Cluster; `proxied` is the suite's, started and closed by the spec.
 */
export function describeRedisLostReplies(name: string, proxied: () => ProxiedRedis): void {
  describe(`lost and slow Redis replies on ${name}`, () => {
    let net: ProxiedRedis;
    let w: World;

    beforeAll(() => {
      net = proxied();
    });

    afterEach(async () => {
      net.releaseReplies();
      await w?.close();
    });

    const request = (script: LuaScript, key: string) => (text: string) =>
      text.includes(script.sha) && text.includes(`:${key}\r\n`);

    describe('a reply lost after Redis ran the script (ioredis resends it)', () => {
      it('claim, raise mode: the resent claim finds its own reservation and answers acquired, same token', async () => {
        w = world(await net.client());
        const action = countingAction();
        const dropped = net.dropAfterRequest(request(scripts.claim, 'k-claim-raise'));
        const result = await w
          .coordinator({ inFlight: 'raise' })
          .coordinateWithOutcome(w.request('k-claim-raise'), action.run);
        await dropped;

        expect(result).toMatchObject({ outcome: 'executed', value: { id: 'ch_1' } });
        expect(action.executions).toBe(1);
        expect(w.events.map((e) => e.type)).toEqual(['miss']);
      });

      it('claim, wait mode: the caller does not wait out its own lease', async () => {
        w = world(await net.client());
        const action = countingAction();
        const dropped = net.dropAfterRequest(request(scripts.claim, 'k-claim-wait'));
        const result = await w
          .coordinator({ inFlight: 'wait', leaseMs: 1_000 })
          .coordinateWithOutcome(w.request('k-claim-wait'), action.run);
        await dropped;

        expect(result).toMatchObject({ outcome: 'executed' });
        expect(action.executions).toBe(1);
        // No in_progress: the caller never saw its own reservation as another owner's.
        expect(w.events.map((e) => e.type)).toEqual(['miss']);
      });

      it("complete: the resent complete succeeds; no IDEMPOTENCY_LEASE_LOST, the action's signal never aborts", async () => {
        w = world(await net.client());
        const action = countingAction();
        let signal: AbortSignal | undefined;
        const dropped = net.dropAfterRequest(request(scripts.complete, 'k-complete'));
        const result = await w
          .coordinator({ inFlight: 'raise' })
          .coordinateWithOutcome(w.request('k-complete'), async (ctx: ActionContext) => {
            signal = ctx.signal;
            return action.run(ctx);
          });
        await dropped;

        expect(result).toMatchObject({ outcome: 'executed', value: { id: 'ch_1' } });
        expect(signal?.aborted).toBe(false);
        await expect(
          w.coordinator().coordinateWithOutcome(w.request('k-complete'), action.run),
        ).resolves.toEqual({
          ...result,
          outcome: 'replayed',
        });
        expect(action.executions).toBe(1);
      });

      it.each([
        ['release', scripts.release],
        ['renew', scripts.renew],
      ])('%s: the resent script answers its owner "done" again', async (name, script) => {
        w = world(await net.client());
        const id = { operation: 'payment.charge.t1', key: `k-${name}` };
        const owner = { ...id, owner: 'owner-a', leaseMs: 5_000 };
        await w.store.claim({ ...owner, fingerprint: 'fp-a', retainMs: 60_000 });
        const dropped = net.dropAfterRequest(request(script, id.key));
        const done = name === 'release' ? await w.store.release(owner) : await w.store.renew(owner);
        await dropped;
        expect(done).toBe(true);
      });
    });

    describe('a claim whose caller was told "unavailable"', () => {
      it.each([
        ['resent after the reconnect', {}],
        ['never answered (ioredis does not resend)', { autoResendUnfulfilledCommands: false }],
      ])('%s is given back: the retry with the same key runs at once', async (_, options) => {
        const client = await net.client(options);
        w = world(client);
        (w.store as { commandTimeoutMs: number }).commandTimeoutMs = 300;
        const action = countingAction();
        const coordinator = w.coordinator({ inFlight: 'raise', leaseMs: 30_000 });
        net.holdReplies();
        // Redis runs the claim; its reply is held past the store's timeout, then lost with the connection.
        await expect(coordinator.coordinate(w.request('k-timeout'), action.run)).rejects.toMatchObject({
          code: IdempotencyErrorCode.StoreUnavailable,
        });
        for (const connection of net.connections) connection.drop();
        net.releaseReplies();
        // The client's retry comes later (after Retry-After); by then ioredis has reconnected.
        const key = w.store.recordKey({ operation: 'payment.charge.t1', key: 'k-timeout' });
        await eventually('reconnected', () =>
          Promise.race([client.exists(key).then(() => true), sleep(200).then(() => false)]).catch(
            () => false,
          ),
        );

        const retry = await coordinator.coordinateWithOutcome(w.request('k-timeout'), action.run);
        expect(retry).toMatchObject({ outcome: 'executed' });
        expect(action.executions).toBe(1);
      });
    });

    describe('wait-mode subscriptions behind a slow connection', () => {
      it('a watch that timed out leaves no subscription behind once the subscribe lands', async () => {
        w = world(await net.client());
        (w.store as { commandTimeoutMs: number }).commandTimeoutMs = 300;
        const id = { operation: 'payment.charge.t1', key: 'k-watch-timeout' };
        const channel = w.store.recordKey(id);
        net.holdReplies();
        await expect(w.store.watch(id, () => undefined)).rejects.toMatchObject({
          code: IdempotencyErrorCode.StoreUnavailable,
        });
        net.releaseReplies();
        // The subscribe reached Redis and is answered now; then the store must give it up (nobody listens).
        await eventually('the subscribe was answered', () =>
          net
            .connectionThatSent(subscribeOf(channel))
            ?.delivered.some((reply) => /\$(9|10)\r\ns?subscribe\r\n/i.test(reply)),
        );
        await eventually('no subscriber left', async () => (await subscribers(channel)) === 0);
      });

      it('a waiter that has its result does not wait for the unsubscribe round trip', async () => {
        w = world(await net.client());
        const direct = new RedisIdempotencyStore(net.direct, { keyPrefix: w.prefix });
        const owner = w.coordinator({ inFlight: 'wait' }, direct);
        const action = countingAction({ holdMs: 5_000 });
        const first = owner.coordinate(w.request('k-rtt'), action.run);
        await eventually('the owner runs', () => action.executions === 1);
        const waiting = w
          .coordinator({ inFlight: 'wait' })
          .coordinateWithOutcome(w.request('k-rtt'), action.run);
        const channel = w.store.recordKey({ operation: 'payment.charge.t1', key: 'k-rtt' });
        await eventually('the waiter subscribed', async () => (await subscribers(channel)) === 1);
        // The subscriber connection answers slowly from now on: the wake-up and the unsubscribe's reply.
        const subscriberConnection = net.connectionThatSent(subscribeOf(channel))!;
        subscriberConnection.delayReplies(500);
        action.release();

        await expect(waiting).resolves.toMatchObject({ outcome: 'replayed', value: { id: 'ch_1' } });
        expect(
          subscriberConnection.delivered.filter((reply) => /\$1[12]\r\ns?unsubscribe\r\n/i.test(reply)),
        ).toEqual([]);
        // ...and the unsubscribe did go out, and its reply arrives later.
        await eventually('the unsubscribe was answered', () =>
          subscriberConnection.delivered.some((reply) => /\$1[12]\r\ns?unsubscribe\r\n/i.test(reply)),
        );
        await first;
        await direct.close();
      });
    });

    /** Subscribers of `channel`, plain or sharded, straight from Redis (every master of a Cluster). */
    async function subscribers(channel: string): Promise<number> {
      const nodes = 'nodes' in net.direct ? net.direct.nodes('master') : [net.direct];
      let plain = 0;
      for (const node of nodes)
        plain += Number(((await node.pubsub('NUMSUB', channel)) as [string, number])[1]);
      return plain + (await shardSubscribers(net.direct, channel));
    }

    /** The RESP text of a (sharded or plain) subscribe of `channel`, as a client sends it. */
    function subscribeOf(channel: string): string {
      return `subscribe\r\n$${Buffer.byteLength(channel)}\r\n${channel}\r\n`;
    }
  });
}
