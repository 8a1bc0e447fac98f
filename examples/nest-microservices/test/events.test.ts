// Events (`@EventPattern`) over the configured broker: a second copy of an event, whether the publisher sent it
// twice or RabbitMQ delivered it again after a lost ack, sends no second receipt and is acknowledged.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it, mock } from 'node:test';
import { IdempotencyChannel } from '@retry-safe/idempotency';
import { Patterns, dropBrokerConnection, nextOutcome, onRabbitMq, servicePerTest } from './support.js';

const service = servicePerTest();

const orderPaid = (eventId = randomUUID(), email = 'ann@example.com') => ({
  order: 'ord_1',
  email,
  meta: { eventId },
});

it('published twice: one receipt, and both copies end (on RabbitMQ, acknowledged)', async () => {
  const event = orderPaid();
  const replayed = nextOutcome(IdempotencyChannel.Replayed, 'receipt.send', event.meta.eventId);
  await service().emit(Patterns.orderPaid, event);
  await service().emit(Patterns.orderPaid, event);
  await replayed;
  assert.equal(service().mailer.sent, 1);
});

it(
  'redelivered by RabbitMQ after a lost ack: one receipt; the redelivery is replayed and acknowledged',
  { skip: !onRabbitMq && 'RabbitMQ only: Nest’s NATS transport (core NATS) never redelivers' },
  async () => {
    const event = orderPaid();
    // The connection drops after the receipt left and before the handler acknowledges its message: the ack never
    // reaches RabbitMQ, which puts the message back and delivers it again, flagged `redelivered`, once the service
    // has reconnected. Published once, so the replay below can only be of that redelivery.
    const { mailer } = service();
    const send = mailer.sendReceipt.bind(mailer);
    mock.method(
      mailer,
      'sendReceipt',
      async (order: string, email: string) => {
        await send(order, email);
        await dropBrokerConnection(service());
      },
      // Once: a second run (the bug this test is for) sends a second receipt, and counts it, without a drop.
      { times: 1 },
    );
    const replayed = nextOutcome(IdempotencyChannel.Replayed, 'receipt.send', event.meta.eventId);
    await service().emit(Patterns.orderPaid, event);
    await replayed;
    assert.equal(mailer.sent, 1);
  },
);

it('its eventId again with another payload: refused, no second receipt (on RabbitMQ, rejected)', async () => {
  const eventId = randomUUID();
  const replayed = nextOutcome(IdempotencyChannel.Replayed, 'receipt.send', eventId);
  const refused = nextOutcome(IdempotencyChannel.KeyReused, 'receipt.send', eventId);
  await service().emit(Patterns.orderPaid, orderPaid(eventId));
  await service().emit(Patterns.orderPaid, orderPaid(eventId));
  await replayed;
  await service().emit(Patterns.orderPaid, orderPaid(eventId, 'bob@example.com'));
  await refused;
  assert.equal(service().mailer.sent, 1);
});
