/**
 * Reading metric names out of PromQL and out of a scrape, for the tests that check every metric a dashboard or an
 * alert rule names is one the services really export. Not a PromQL parser: enough for selectors, functions,
 * aggregations with `by`/`without`, binary operators, ranges and Grafana's `$__rate_interval`.
 */

/** A metric selector of an expression: the metric and its equality matchers (`job="payments"`). */
export interface PromqlSelector {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

// Keywords and operators that look like names; functions and aggregations are told by the `(` after them.
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
]);
const MORE_KEYWORDS = new Set(['unless', 'offset', 'inf', 'nan']);

/** Every metric selector in `expr`, in order (a metric named twice appears twice). */
export function promqlSelectors(expr: string): PromqlSelector[] {
  const text = expr
    // Label lists of aggregations and vector matching name labels, not metrics.
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    // Ranges and subqueries: `[5m]`, `[$__rate_interval]`, `[1h:5m]`.
    .replace(/\[[^\]]*\]/g, ' ');
  const selectors: PromqlSelector[] = [];
  const token = /(?<![A-Za-z0-9_:.$"])([A-Za-z_:][A-Za-z0-9_:]*)\s*(\{[^}]*\})?/g;
  for (const match of text.matchAll(token)) {
    const [whole, name, matchers] = match as unknown as [string, string, string | undefined];
    const rest = text.slice((match.index ?? 0) + whole.length).trimStart();
    if (matchers === undefined && rest.startsWith('(')) continue;
    if (KEYWORDS.has(name) || MORE_KEYWORDS.has(name.toLowerCase())) continue;
    const labels: Record<string, string> = {};
    for (const pair of (matchers ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"([^"]*)"/g)) {
      labels[pair[1]!] = pair[2]!;
    }
    selectors.push({ name, labels });
  }
  return selectors;
}

/** The metric names in `expr`, each once. */
export function promqlMetricNames(expr: string): string[] {
  return [...new Set(promqlSelectors(expr).map((selector) => selector.name))];
}

/**
 * The series names a scrape (Prometheus text exposition) offers: each `# TYPE` family, a histogram's as
 * `_bucket`, `_sum` and `_count`, a summary's as itself, `_sum` and `_count`. Families without samples yet (a
 * labelled counter nothing has counted) are included: PromQL may name them before they count.
 */
export function exportedMetricNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE ([A-Za-z_:][A-Za-z0-9_:]*) (\w+)$/.exec(line);
    if (type === null) continue;
    const [, name, kind] = type as unknown as [string, string, string];
    if (kind === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    else if (kind === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(`${name}${suffix}`);
    else names.add(name);
  }
  return names;
}
