/** What `pnpm bench:http` measures when no PAYMENTS_URL is given: payments with the coordinator on and off. */
import {
  freePort,
  startPrivateRedisServer,
  startServiceProcess,
  TEST_INTERNAL_TOKEN,
  type ServiceProcess,
} from '@retry-safe/testing';
import { repoRoot } from './repo-root.js';

/**
 * What every call to payments carries: payments accepts only callers holding the internal credential, the own
 * stack's, or `INTERNAL_TOKEN` for a `PAYMENTS_URL` of your own.
 */
export const INTERNAL_AUTHORIZATION = `Bearer ${process.env['INTERNAL_TOKEN'] ?? TEST_INTERNAL_TOKEN}`;

/** Services this script started itself; closed at the end. */
export interface OwnStack {
  readonly onUrl: string;
  readonly offUrl: string;
  close(): Promise<void>;
}

/**
 * A private redis-server, provider-sim and two payments processes from the built tree, one with the coordinator on
 * and one with it off, each on a free port.
 */
export async function startOwnStack(): Promise<OwnStack> {
  const root = repoRoot();
  const redis = await startPrivateRedisServer();
  const started: ServiceProcess[] = [];
  try {
    const providerPort = await freePort();
    started.push(
      await startServiceProcess({
        name: 'provider-sim',
        entry: `${root}apps/provider-sim/dist/main.js`,
        port: providerPort,
        env: { PROVIDER_PORT: String(providerPort) },
      }),
    );
    const payments = async (enabled: boolean): Promise<string> => {
      const port = await freePort();
      started.push(
        await startServiceProcess({
          name: `payments-${enabled ? 'on' : 'off'}`,
          entry: `${root}apps/payments/dist/main.js`,
          port,
          env: {
            PAYMENTS_PORT: String(port),
            PROVIDER_URL: `http://127.0.0.1:${providerPort}`,
            REDIS_URL: redis.url,
            INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
            IDEMPOTENCY_ENABLED: String(enabled),
            IDEMPOTENCY_KEY_PREFIX: `bench-http-${enabled ? 'on' : 'off'}:`,
          },
        }),
      );
      return `http://127.0.0.1:${port}/v1/payments`;
    };
    const onUrl = await payments(true);
    const offUrl = await payments(false);
    return {
      onUrl,
      offUrl,
      close: async () => {
        await Promise.all(started.map((service) => service.kill('SIGTERM')));
        await redis.close();
      },
    };
  } catch (error) {
    await Promise.all(started.map((service) => service.kill('SIGKILL')));
    await redis.close();
    throw error;
  }
}
