import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config/app-config.js';

describe('loadConfig', () => {
  it('has defaults for everything', () => {
    expect(loadConfig({})).toEqual({
      port: 3003,
      host: '127.0.0.1',
      drainTimeoutMs: 10_000,
      logLevel: 'info',
      dedup: 'on',
      latencyMs: 0,
      faultsEnabled: false,
    });
  });

  it('reads every variable', () => {
    expect(
      loadConfig({
        PROVIDER_PORT: '4000',
        PROVIDER_DEDUP: 'off',
        PROVIDER_LATENCY_MS: '25',
        FAULTS_ENABLED: 'true',
        HOST: '0.0.0.0',
        DRAIN_TIMEOUT_MS: '3000',
        LOG_LEVEL: 'debug',
      }),
    ).toEqual({
      port: 4000,
      host: '0.0.0.0',
      drainTimeoutMs: 3000,
      logLevel: 'debug',
      dedup: 'off',
      latencyMs: 25,
      faultsEnabled: true,
    });
  });

  it('names every invalid variable and the value it got', () => {
    expect(() =>
      loadConfig({ PROVIDER_PORT: 'abc', PROVIDER_DEDUP: 'maybe', FAULTS_ENABLED: 'sure' }),
    ).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringMatching(
          /PROVIDER_PORT="abc".*\n.*PROVIDER_DEDUP="maybe": must be 'on' or 'off'\n.*FAULTS_ENABLED="sure"/,
        ),
      }),
    );
  });
});
