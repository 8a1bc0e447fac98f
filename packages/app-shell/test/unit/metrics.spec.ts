import { describe, expect, it } from '@jest/globals';
import { HttpMetrics } from '../../src/telemetry/metrics.js';

const Outcome = { Created: 'created', Replayed: 'replayed' } as const;

class TestMetrics extends HttpMetrics {
  readonly calls = this.counterBy('test_calls_total', 'Test calls', 'outcome', Outcome);
  readonly idempotencyEvents = this.idempotencyEventCounter();
}

describe('HttpMetrics', () => {
  it('counterBy lists the label values of its object in the help, and counts by that label', async () => {
    const metrics = new TestMetrics();
    metrics.calls.inc({ outcome: Outcome.Replayed });
    const scrape = await metrics.registry.metrics();
    expect(scrape).toContain('# HELP test_calls_total Test calls by outcome (created, replayed)');
    expect(scrape).toContain('test_calls_total{outcome="replayed"} 1');
  });

  it('idempotencyEventCounter counts the coordinator events by type', async () => {
    const metrics = new TestMetrics();
    metrics.idempotencyEvents.inc({ type: 'hit' });
    const scrape = await metrics.registry.metrics();
    expect(scrape).toMatch(
      /# HELP idempotency_events_total Idempotency coordinator events by type \(hit, miss, /,
    );
    expect(scrape).toContain('idempotency_events_total{type="hit"} 1');
  });
});
