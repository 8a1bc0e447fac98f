/**
 * Issue 16, dashboards and alerts as files: every metric the Grafana dashboard (ops/grafana/dashboards) and the
 * alert rules (ops/prometheus/rules) name is one the services really export, read from a running stack's scrapes
 * (the five services as processes), and a selector that names a job (`job="payments"`) names a metric of that
 * job's service. A renamed or removed metric fails here instead of leaving an empty panel or a silent alert.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { exportedMetricNames, promqlMetricNames, promqlSelectors, waitFor } from '@retry-safe/testing';
import { startStack, type ServiceName, type Stack } from '@retry-safe/scenarios';

const OPS = new URL('../../ops/', import.meta.url);

// Prometheus' job names (ops/prometheus/prometheus.yml, the compose services) and the stack's services.
const JOBS: Readonly<Record<string, ServiceName>> = {
  gateway: 'gateway',
  orders: 'orders',
  payments: 'payments',
  'provider-sim': 'provider',
  'invoice-worker': 'worker',
};
// Series Prometheus itself writes for every target, not the services.
const SCRAPE_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped']);

interface Query {
  readonly where: string;
  readonly expr: string;
}

/** Every `expr:` of the rule files (one line each: the files keep them so). */
function ruleQueries(): Query[] {
  const dir = new URL('prometheus/rules/', OPS);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yml'))
    .flatMap((file) =>
      [...readFileSync(new URL(file, dir), 'utf8').matchAll(/^\s+expr:\s*(.+)$/gm)].map((match) => ({
        where: `rules/${file}`,
        expr: match[1]!.trim(),
      })),
    );
}

interface Panel {
  readonly title?: string;
  readonly targets?: readonly { readonly expr?: string }[];
  readonly panels?: readonly Panel[];
}

/** Every target `expr` of every dashboard file, rows' panels included. */
function dashboardQueries(): Query[] {
  const dir = new URL('grafana/dashboards/', OPS);
  const walk = (file: string, panels: readonly Panel[]): Query[] =>
    panels.flatMap((panel) => [
      ...(panel.targets ?? [])
        .filter((target) => target.expr !== undefined)
        .map((target) => ({ where: `${file}: ${panel.title}`, expr: target.expr! })),
      ...walk(file, panel.panels ?? []),
    ]);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .flatMap((file) =>
      walk(file, (JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Panel).panels ?? []),
    );
}

describe('the metric-name reader', () => {
  it('reads selectors out of aggregations, ratios, ranges and label lists', () => {
    expect(
      promqlSelectors(
        'sum by (job, upstream) (rate(upstream_retries_total{job="orders"}[$__rate_interval])) / ' +
          'sum by (job) (rate(upstream_attempts_total[5m])) > 0.1 or max(invoice_dead_letter_jobs) > 0',
      ),
    ).toEqual([
      { name: 'upstream_retries_total', labels: { job: 'orders' } },
      { name: 'upstream_attempts_total', labels: {} },
      { name: 'invoice_dead_letter_jobs', labels: {} },
    ]);
    expect(
      promqlMetricNames(
        'histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{route!~"/health.*"}[1m])))',
      ),
    ).toEqual(['http_request_duration_seconds_bucket']);
    expect(promqlMetricNames('up{job=~"gateway|orders"} == 0')).toEqual(['up']);
  });

  it('expands histograms in a scrape', () => {
    const names = exportedMetricNames(
      '# HELP a_seconds x\n# TYPE a_seconds histogram\na_seconds_bucket{le="1"} 0\n# TYPE b_total counter\n',
    );
    expect([...names].sort()).toEqual(['a_seconds_bucket', 'a_seconds_count', 'a_seconds_sum', 'b_total']);
  });
});

describe('every metric of the dashboard and the alert rules is exported', () => {
  let stack: Stack;
  const exported = new Map<string, Set<string>>();

  beforeAll(async () => {
    stack = await startStack({ worker: true });
    // The gateway's /metrics is on a listener of its own: its port is in its start-up line.
    const gatewayMetrics = await waitFor('the gateway metrics listener', async () => {
      const match = /"msg":"metrics listening"[^\n]*"port":(\d+)/.exec(
        stack.processes('gateway')[0]!.output(),
      );
      if (match === null) throw new Error('not logged yet');
      return `http://127.0.0.1:${match[1]}`;
    });
    const urls: Record<ServiceName, string> = {
      ...stack.urls,
      gateway: gatewayMetrics,
      worker: stack.urls.worker!,
    };
    for (const [job, service] of Object.entries(JOBS)) {
      const res = await fetch(`${urls[service]}/metrics`);
      expect(res.status).toBe(200);
      exported.set(job, exportedMetricNames(await res.text()));
    }
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('the files name queries: the rules one per alert, the dashboard one per panel target', () => {
    const rules = readFileSync(new URL('prometheus/rules/retry-safe.rules.yml', OPS), 'utf8');
    expect(ruleQueries()).toHaveLength([...rules.matchAll(/^\s+- alert:/gm)].length);
    expect(dashboardQueries().length).toBeGreaterThan(10);
  });

  it('names only metrics some service exports, and of the job a selector names', () => {
    const all = new Set([...exported.values()].flatMap((names) => [...names]));
    const unknown: string[] = [];
    for (const { where, expr } of [...ruleQueries(), ...dashboardQueries()]) {
      const selectors = promqlSelectors(expr);
      expect({ where, expr, selectors: selectors.length > 0 }).toEqual({ where, expr, selectors: true });
      for (const { name, labels } of selectors) {
        if (SCRAPE_SERIES.has(name)) continue;
        const job = labels['job'];
        const known = job === undefined ? all.has(name) : (exported.get(job)?.has(name) ?? false);
        if (!known) unknown.push(`${where}: ${name}${job === undefined ? '' : ` (job ${job})`}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('the dashboard covers what an operator of payments watches', () => {
    const named = new Set(dashboardQueries().flatMap(({ expr }) => promqlMetricNames(expr)));
    for (const metric of [
      'payments_total',
      'idempotency_events_total',
      'upstream_retries_total',
      'invoice_queue_jobs',
      'invoice_dead_letter_jobs',
      'invoice_dead_letters_total',
    ]) {
      expect(named).toContain(metric);
    }
  });
});
