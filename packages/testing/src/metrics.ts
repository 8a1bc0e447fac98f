/**
 * The value of one sample in Prometheus text exposition: the first line of metric `name` whose labels include every
 * pair of `labels` (0 when there is none, as a counter that has not counted yet).
 *
 * @example metricSample(text, 'idempotency_events_total', { type: 'hit' })
 */
export function metricSample(
  text: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).match(/^\{([^}]*)\}/)?.[1] ?? '';
    if (wanted.every((pair) => labelText.split(',').includes(pair))) return Number(line.split(' ').at(-1));
  }
  return 0;
}

/** `GET <baseUrl>/metrics`, then {@link metricSample} of it. */
export async function metricValue(
  baseUrl: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): Promise<number> {
  const res = await fetch(`${baseUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET ${baseUrl}/metrics answered ${res.status}`);
  return metricSample(await res.text(), name, labels);
}
