import { describe, expect, it } from '@jest/globals';
import { INTERNAL_SERVICE_DEFAULTS } from '@retry-safe/testing';
import { loadConfig } from '../../src/config/app-config.js';

// The shell's defaults (`HOST`, `DRAIN_TIMEOUT_MS`, `LOG_LEVEL`, `FAULTS_ENABLED`, the server limits, not a demo):
// those of an internal service, less its inbound limits and credential, which the simulator does not read.
const INTERNAL_ONLY = ['requestBudgetMs', 'bodyLimitBytes', 'internalToken'];
const SHELL_DEFAULTS = Object.fromEntries(
  Object.entries(INTERNAL_SERVICE_DEFAULTS).filter(([name]) => !INTERNAL_ONLY.includes(name)),
);

describe('loadConfig', () => {
  it('has defaults for everything', () => {
    expect(loadConfig({})).toEqual({
      port: 3003,
      dedup: 'on',
      latencyMs: 0,
      ...SHELL_DEFAULTS,
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
        ADMIN_TOKEN: 'admin-token-0123456789abcdef0123456789',
        HEADERS_TIMEOUT_MS: '2000',
        REQUEST_TIMEOUT_MS: '3000',
        KEEP_ALIVE_TIMEOUT_MS: '4000',
        MAX_CONNECTIONS: '50',
        RETRY_SAFE_DEMO: '1',
      }),
    ).toEqual({
      port: 4000,
      host: '0.0.0.0',
      drainTimeoutMs: 3000,
      logLevel: 'debug',
      dedup: 'off',
      latencyMs: 25,
      faultsEnabled: true,
      adminToken: 'admin-token-0123456789abcdef0123456789',
      serverLimits: {
        headersTimeoutMs: 2000,
        requestTimeoutMs: 3000,
        keepAliveTimeoutMs: 4000,
        maxConnections: 50,
      },
      demo: true,
    });
  });

  it('refuses REQUEST_TIMEOUT_MS under HEADERS_TIMEOUT_MS, and FAULTS_ENABLED off loopback without ADMIN_TOKEN', () => {
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '4000' })).toThrow(
      /REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS \(5000\)/,
    );
    expect(() => loadConfig({ HOST: '0.0.0.0', FAULTS_ENABLED: 'true' })).toThrow(
      /ADMIN_TOKEN: is required when FAULTS_ENABLED=true and HOST \(0\.0\.0\.0\) is not loopback/,
    );
    expect(() => loadConfig({ NODE_ENV: 'production', FAULTS_ENABLED: 'true' })).toThrow(
      /FAULTS_ENABLED: must be false with NODE_ENV=production/,
    );
    expect(loadConfig({ HOST: '::1', FAULTS_ENABLED: 'true' }).faultsEnabled).toBe(true);
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
