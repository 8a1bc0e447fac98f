/**
 * Traces (issue 16): every service exports its spans to a collector in this process (real spans over OTLP/HTTP),
 * and one client action is one trace across the hops, their retries and the queue's redeliveries. The rows are
 * the shared scenario definitions (chain: payments' and orders' answers each lost once; jobs: the first
 * acknowledgement fails), so the traffic is the one the tables count. A client's own `traceparent` is only a link:
 * the gateway, the public edge, starts a trace of its own (issue 24).
 */
import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import {
  DEMO_TENANTS,
  chainScenario,
  fixtureOrderBody,
  jobsScenario,
  runRow,
  stackTarget,
  type Scenario,
  type Stack,
} from '@retry-safe/scenarios';
import { rowOf } from '../support/scenario-rows.js';
import type { CollectedSpan } from '@retry-safe/testing';
import { newKey } from '../support/client.js';
import { useStack } from '../support/stack.js';
import { Trace, collectTrace } from '../support/traces.js';

const server = (route: string) => (span: CollectedSpan) => span.kind === 'server' && span.name === route;
const outcome = (span: CollectedSpan | undefined) => span?.attributes['idempotency.outcome'];
const attempts = (trace: Trace, call: CollectedSpan) =>
  trace
    .children(call)
    .map((attempt) => [attempt.attributes['retry_safe.attempt'], attempt.attributes['retry_safe.outcome']]);

/**
 * Runs the `design` row of `scenario` on `running` (its measured row must be the documented one), then collects the
 * trace rooted at the gateway's `route` server span once `complete` says it has arrived.
 */
async function traceOfRow<D>(
  running: Stack,
  scenario: Scenario<D>,
  design: string,
  route: string,
  complete: (trace: Trace) => boolean,
) {
  const result = await runRow(scenario, rowOf(scenario, design), stackTarget(running), { diagram: false });
  expect(result.matches).toBe(true);
  const collector = running.traces!;
  return { collector, trace: await collectTrace(collector, server(route), complete) };
}

describe('traces: one client action, one trace', () => {
  const stack = useStack({ traces: true, worker: true });

  it("the gateway starts its own trace for a client's traceparent and keeps it as a link; the hops behind it are its children", async () => {
    const clientTrace = randomBytes(16).toString('hex');
    const clientSpan = randomBytes(8).toString('hex');
    const res = await request(stack().urls.gateway)
      .post('/v1/orders')
      .set('Authorization', `Bearer ${DEMO_TENANTS.a.token}`)
      .set('Idempotency-Key', newKey('traced'))
      .set('traceparent', `00-${clientTrace}-${clientSpan}-01`)
      .send(fixtureOrderBody('EUR'));
    expect(res.status).toBe(201);

    const linksClient = (span: CollectedSpan) =>
      span.service === 'gateway' &&
      span.kind === 'server' &&
      span.links.some((link) => link.traceId === clientTrace);
    const trace = await collectTrace(
      stack().traces!,
      linksClient,
      (t) => t.of('orders', { kind: 'server' }).length > 0,
    );
    const [gateway] = trace.of('gateway', { kind: 'server' });
    expect(gateway?.traceId).not.toBe(clientTrace);
    expect([gateway?.parentSpanId, gateway?.links]).toEqual([
      undefined,
      [{ traceId: clientTrace, spanId: clientSpan }],
    ]);
    // An internal hop keeps its caller as parent: orders' server span was sent by the gateway's attempt, no link.
    const [orders] = trace.of('orders', { kind: 'server' });
    expect(trace.attemptThatSent(orders as CollectedSpan)).toBeDefined();
    expect(orders?.links).toEqual([]);
    // Nothing was recorded in the client's trace.
    expect(
      stack()
        .traces!.spans()
        .filter((span) => span.traceId === clientTrace),
    ).toEqual([]);
  });

  it('chain: a payment whose answers are lost twice is one trace: orders 2 server spans, payments 3, one charge', async () => {
    const { collector, trace } = await traceOfRow(
      stack(),
      chainScenario,
      'key propagated',
      'POST /v1/orders/:orderId/payments',
      (t) =>
        t.of('payments', { kind: 'server' }).length === 3 && t.of('gateway', { kind: 'server' }).length === 1,
    );

    expect(trace.orphans()).toEqual([]);
    const [gateway] = trace.of('gateway', { kind: 'server' });
    const orders = trace.of('orders', { kind: 'server' });
    const payments = trace.of('payments', { kind: 'server' });
    const charges = trace.of('provider-sim', { kind: 'server', name: 'POST /v1/charges' });
    expect([gateway?.name, orders.map((s) => s.name), payments.map((s) => s.name)]).toEqual([
      'POST /v1/orders/:orderId/payments',
      ['POST /v1/orders/:orderId/payments', 'POST /v1/orders/:orderId/payments'],
      ['POST /v1/payments', 'POST /v1/payments', 'POST /v1/payments'],
    ]);
    expect(charges).toHaveLength(1);
    // Nothing of this payment went into another trace.
    const everywhere = collector.spans().filter((s) => s.kind === 'server' && s.name === 'POST /v1/payments');
    expect(everywhere).toHaveLength(3);

    // The gateway's retry: one call span under its server span, attempt 1 lost, attempt 2 answered.
    const gatewayCall = trace.child(gateway as CollectedSpan, 'call orders');
    expect(attempts(trace, gatewayCall)).toEqual([
      [1, 'network_error'],
      [2, 'ok'],
    ]);
    const gatewayAttempts = trace.children(gatewayCall);
    expect(orders.map((span) => trace.attemptThatSent(span)?.spanId)).toEqual(
      gatewayAttempts.map((span) => span.spanId),
    );

    // orders' retry of payments in its first request; its second request (the gateway's retry) calls once.
    const ordersCalls = orders.map((span) => trace.child(span, 'call payments'));
    expect(ordersCalls.map((call) => attempts(trace, call))).toEqual([
      [
        [1, 'network_error'],
        [2, 'ok'],
      ],
      [[1, 'ok']],
    ]);
    const ordersAttempts = ordersCalls.flatMap((call) => trace.children(call));
    expect(payments.map((span) => trace.attemptThatSent(span)?.spanId)).toEqual(
      ordersAttempts.map((span) => span.spanId),
    );

    // payments executed once (the one charge under that span) and replayed twice.
    const coordinated = payments.map((span) => trace.child(span, 'idempotency.coordinate'));
    expect(coordinated.map(outcome)).toEqual(['executed', 'replayed', 'replayed']);
    const tokens = new Set(coordinated.map((span) => span.attributes['idempotency.fencing_token']));
    expect(tokens.size).toBe(1);
    const providerCall = trace.child(coordinated[0] as CollectedSpan, 'call provider');
    expect(trace.attemptThatSent(charges[0] as CollectedSpan)?.parentSpanId).toBe(providerCall.spanId);

    // The instrumented libraries, loaded by ES modules and still patched: payments' record goes through ioredis,
    // orders' order and Charge through pg, each a client span in the trace.
    const databases = (service: string) =>
      new Set(trace.of(service, { kind: 'client' }).map((span) => span.attributes['db.system.name']));
    expect([databases('payments').has('redis'), databases('orders').has('postgresql')]).toEqual([true, true]);
  });

  it('jobs: an invoice whose first acknowledgement failed is one trace: the request, two deliveries, one email', async () => {
    const { collector, trace } = await traceOfRow(
      stack(),
      jobsScenario,
      'protected',
      'POST /v1/orders/:orderId/invoices',
      (t) =>
        t.of('invoice-worker', { kind: 'consumer' }).length === 2 &&
        t.of('invoice-worker', { name: 'idempotency.coordinate' }).length === 2,
    );

    expect(trace.orphans()).toEqual([]);
    const [ordersRequest] = trace.of('orders', { kind: 'server', name: 'POST /v1/orders/:orderId/invoices' });
    expect(trace.of('gateway', { kind: 'server' }).map((span) => span.name)).toEqual([
      'POST /v1/orders/:orderId/invoices',
    ]);
    // Both deliveries continue the request that wrote the outbox row (not the relay's round).
    const deliveries = trace.of('invoice-worker', { kind: 'consumer' });
    expect(deliveries.map((span) => [span.name, span.parentSpanId])).toEqual([
      ['process invoices', ordersRequest?.spanId],
      ['process invoices', ordersRequest?.spanId],
    ]);
    const coordinated = deliveries.map((span) => trace.child(span, 'idempotency.coordinate'));
    expect(coordinated.map(outcome)).toEqual(['executed', 'replayed']);
    const emails = trace.of('provider-sim', { kind: 'server', name: 'POST /v1/emails' });
    expect(emails).toHaveLength(1);
    expect(collector.spans().filter((s) => s.kind === 'server' && s.name === 'POST /v1/emails')).toHaveLength(
      1,
    );
    const mailCall = trace.child(coordinated[0] as CollectedSpan, 'call mail-provider');
    expect(trace.attemptThatSent(emails[0] as CollectedSpan)?.parentSpanId).toBe(mailCall.spanId);
  });
});
