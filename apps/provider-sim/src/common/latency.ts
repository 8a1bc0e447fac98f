import { setTimeout as sleep } from 'node:timers/promises';

/** Waits `ms` (PROVIDER_LATENCY_MS) to simulate a provider that takes time; resolves at once for 0. */
export async function simulateLatency(ms: number): Promise<void> {
  if (ms > 0) await sleep(ms);
}
