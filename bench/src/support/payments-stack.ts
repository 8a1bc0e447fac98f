/** What `pnpm bench:http` measures when no PAYMENTS_URL is given: payments with the coordinator on and off. */
import {
  freePort,
  startPrivateRedisServer,
  startServiceProcess,
  TEST_INTERNAL_TOKEN,
  type ServiceProcess,
} from '@retry-safe/testing';
import { repoRoot } from './repo-root.js';
import { startSpanSink, type SpanSink } from './span-sink.js';

/**
 * What every call to payments carries: payments accepts only callers holding the internal credential, the own
 * stack's, or `INTERNAL_TOKEN` for a `PAYMENTS_URL` of your own.
 */
export const INTERNAL_AUTHORIZATION = `Bearer ${process.env['INTERNAL_TOKEN'] ?? TEST_INTERNAL_TOKEN}`;

/** Services this script started itself; closed at the end. */
export interface OwnStack {
  readonly onUrl: string;
  readonly offUrl: string;
  /** Coordinator on, traced, exporting to {@link OwnStack.sink}: only with `tracing`. */
  readonly tracedUrl: string | undefined;
  /** The same with `TRACES_SAMPLE_RATIO=0.1`: one trace in ten recorded and exported. */
  readonly sampledUrl: string | undefined;
  readonly sink: SpanSink | undefined;
  /** The process serving each URL (for its CPU time). */
  readonly pidOf: (url: string) => number | undefined;
  close(): Promise<void>;
}

/**
 * A private redis-server, provider-sim and two payments processes from the built tree, one with the coordinator on
 * and one with it off, each on a free port, untraced (no telemetry hook). With `tracing`, a third payments process,
 * coordinator on, with the telemetry hook and `OTEL_EXPORTER_OTLP_ENDPOINT` set to a local span sink, and a fourth
 * that samples one trace in ten (`TRACES_SAMPLE_RATIO=0.1`).
 */
export async function startOwnStack({ tracing = false } = {}): Promise<OwnStack> {
  const root = repoRoot();
  const redis = await startPrivateRedisServer();
  const started: ServiceProcess[] = [];
  const byUrl = new Map<string, ServiceProcess>();
  const sink = tracing ? await startSpanSink() : undefined;
  try {
    const providerPort = await freePort();
    started.push(
      await startServiceProcess({
        name: 'provider-sim',
        entry: `${root}apps/provider-sim/dist/main.js`,
        port: providerPort,
        env: { PROVIDER_PORT: String(providerPort) },
        telemetry: false,
      }),
    );
    const payments = async (enabled: boolean, traced = false, ratio = 1): Promise<string> => {
      const port = await freePort();
      const design = traced ? `traced${ratio < 1 ? Math.round(ratio * 100) : ''}` : enabled ? 'on' : 'off';
      const url = `http://127.0.0.1:${port}/v1/payments`;
      const service = await startServiceProcess({
        name: `payments-${design}`,
        entry: `${root}apps/payments/dist/main.js`,
        port,
        telemetry: traced,
        env: {
          ...(traced && sink !== undefined
            ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, TRACES_SAMPLE_RATIO: String(ratio) }
            : {}),
          PAYMENTS_PORT: String(port),
          PROVIDER_URL: `http://127.0.0.1:${providerPort}`,
          REDIS_URL: redis.url,
          INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
          IDEMPOTENCY_ENABLED: String(enabled),
          IDEMPOTENCY_KEY_PREFIX: `bench-http-${design}:`,
        },
      });
      started.push(service);
      byUrl.set(url, service);
      return url;
    };
    const onUrl = await payments(true);
    const offUrl = await payments(false);
    const tracedUrl = tracing ? await payments(true, true) : undefined;
    const sampledUrl = tracing ? await payments(true, true, 0.1) : undefined;
    return {
      onUrl,
      offUrl,
      tracedUrl,
      sampledUrl,
      sink,
      pidOf: (url) => byUrl.get(url)?.pid,
      close: async () => {
        await Promise.all(started.map((service) => service.kill('SIGTERM')));
        await redis.close();
        await sink?.close();
      },
    };
  } catch (error) {
    await Promise.all(started.map((service) => service.kill('SIGKILL')));
    await redis.close();
    await sink?.close();
    throw error;
  }
}
