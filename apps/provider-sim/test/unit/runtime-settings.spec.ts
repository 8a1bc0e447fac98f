import { describe, expect, it } from '@jest/globals';
import { RuntimeSettings } from '@retry-safe/app-shell/admin';
import { CHARGES } from '../../src/charges/charge.schema.js';
import { loadConfig } from '../../src/config/app-config.js';
import { SettingsOverridesSchema, providerSettings } from '../../src/config/provider-settings.js';
import { SimulatedEffect, Simulation } from '../../src/ledger/simulated-effect.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';

describe('RuntimeSettings (PUT /__config)', () => {
  it('switches the ledger between dedup and no dedup on a running simulator', async () => {
    const config = loadConfig({ PROVIDER_DEDUP: 'on' });
    const settings = new RuntimeSettings(providerSettings(config));
    const charges = new SimulatedEffect(
      new Simulation(config, settings),
      new MetricsService().charges,
      CHARGES,
    );
    const body = { amount: 100, currency: 'EUR' };

    const first = await charges.perform('k-1', body);
    expect((await charges.perform('k-1', body)).replayed).toBe(true);

    settings.replace({ dedup: 'off' });
    const undeduplicated = await charges.perform('k-1', body);
    expect(undeduplicated.replayed).toBe(false);
    expect(undeduplicated.answer.id).not.toBe(first.answer.id);

    settings.reset();
    expect(settings.snapshot()).toEqual({ settings: { dedup: 'on' }, overrides: {} });
    expect((await charges.perform('k-1', body)).answer.id).toBe(first.answer.id);
  });

  it('refuses anything but {"dedup": "on" | "off"}', () => {
    expect(SettingsOverridesSchema.safeParse({ dedup: 'maybe' }).success).toBe(false);
    expect(SettingsOverridesSchema.safeParse({ latencyMs: 5 }).success).toBe(false);
    expect(SettingsOverridesSchema.safeParse({}).success).toBe(true);
  });
});
