import { describe, expect, it } from '@jest/globals';
import { ConfigError, KeyMode, loadGatewayConfig } from '../../src/config/gateway-config.js';

const TOKENS = 'demo-token-tenant-a=a0000000-0000-4000-8000-00000000000a';

describe('loadGatewayConfig', () => {
  it('applies the defaults', () => {
    const config = loadGatewayConfig({ API_TOKENS: TOKENS });
    expect(config).toMatchObject({
      port: 3000,
      ordersUrl: 'http://127.0.0.1:3001',
      keyMode: KeyMode.Propagate,
      deadlineMs: 10_000,
      bodyLimitBytes: 16_384,
      upstream: { retries: 3, attemptTimeoutMs: 5_000 },
      faultsEnabled: false,
    });
    expect(config.apiTokens.size).toBe(1);
  });

  it('reads every variable', () => {
    const config = loadGatewayConfig({
      API_TOKENS: TOKENS,
      GATEWAY_PORT: '4000',
      ORDERS_URL: 'http://orders:3001/',
      GATEWAY_KEY_MODE: 'regenerate',
      GATEWAY_DEADLINE_MS: '2500',
      GATEWAY_BODY_LIMIT_BYTES: '1024',
      UPSTREAM_RETRIES: '0',
      UPSTREAM_ATTEMPT_TIMEOUT_MS: '750',
      FAULTS_ENABLED: 'true',
    });
    expect(config).toMatchObject({
      port: 4000,
      ordersUrl: 'http://orders:3001',
      keyMode: KeyMode.Regenerate,
      deadlineMs: 2500,
      bodyLimitBytes: 1024,
      upstream: { retries: 0, attemptTimeoutMs: 750 },
      faultsEnabled: true,
    });
  });

  it('names every invalid variable with its value', () => {
    const load = () =>
      loadGatewayConfig({
        API_TOKENS: TOKENS,
        GATEWAY_PORT: '70000',
        GATEWAY_KEY_MODE: 'sometimes',
        ORDERS_URL: 'ftp://orders',
        FAULTS_ENABLED: 'yes please',
      });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/GATEWAY_PORT="70000": must be between 1 and 65535/);
    expect(load).toThrow(/GATEWAY_KEY_MODE="sometimes": must be 'propagate' or 'regenerate'/);
    expect(load).toThrow(/ORDERS_URL="ftp:\/\/orders": must be an http\(s\) URL/);
    expect(load).toThrow(/FAULTS_ENABLED="yes please"/);
  });

  it('requires API_TOKENS and never echoes its value', () => {
    expect(() => loadGatewayConfig({})).toThrow(/API_TOKENS: is required/);
    let message = '';
    try {
      loadGatewayConfig({ API_TOKENS: 'secret-but-short=not-a-uuid' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/API_TOKENS: entry 1/);
    expect(message).not.toContain('secret-but-short');
  });
});
