import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@retry-safe/app-shell/config';
import { KeyMode, loadGatewayConfig } from '../../src/config/gateway-config.js';
import { TEST_INTERNAL_TOKEN } from '@retry-safe/testing';

const TOKENS = 'demo-token-tenant-a=a0000000-0000-4000-8000-00000000000a';
const INTERNAL_TOKEN = TEST_INTERNAL_TOKEN;

describe('loadGatewayConfig', () => {
  it('applies the defaults', () => {
    const config = loadGatewayConfig({ API_TOKENS: TOKENS, INTERNAL_TOKEN });
    expect(config).toMatchObject({
      port: 3000,
      ordersUrls: ['http://127.0.0.1:3001'],
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
      INTERNAL_TOKEN,
      GATEWAY_PORT: '4000',
      ORDERS_URL: 'http://orders-1:3001/, http://orders-2:3001',
      GATEWAY_KEY_MODE: 'regenerate',
      GATEWAY_DEADLINE_MS: '2500',
      GATEWAY_BODY_LIMIT_BYTES: '1024',
      UPSTREAM_RETRIES: '0',
      UPSTREAM_ATTEMPT_TIMEOUT_MS: '750',
      FAULTS_ENABLED: 'true',
      ADMIN_TOKEN: 'admin-token-0123456789abcdef0123456789',
    });
    expect(config).toMatchObject({
      port: 4000,
      ordersUrls: ['http://orders-1:3001', 'http://orders-2:3001'],
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
        INTERNAL_TOKEN,
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

  it('listens on every interface by default (the public edge) and drains 10 s; HOST and DRAIN_TIMEOUT_MS set both', () => {
    expect(loadGatewayConfig({ API_TOKENS: TOKENS, INTERNAL_TOKEN })).toMatchObject({
      host: '0.0.0.0',
      drainTimeoutMs: 10_000,
      internalToken: INTERNAL_TOKEN,
    });
    const config = loadGatewayConfig({
      API_TOKENS: TOKENS,
      INTERNAL_TOKEN,
      HOST: '127.0.0.1',
      DRAIN_TIMEOUT_MS: '2500',
    });
    expect(config).toMatchObject({ host: '127.0.0.1', drainTimeoutMs: 2500 });
    const bad = () =>
      loadGatewayConfig({ API_TOKENS: TOKENS, INTERNAL_TOKEN, HOST: 'everywhere', DRAIN_TIMEOUT_MS: '-1' });
    expect(bad).toThrow(/HOST="everywhere": must be an IP address/);
    expect(bad).toThrow(/DRAIN_TIMEOUT_MS="-1": must be between 0 and 120000/);
  });

  it('refuses to start without INTERNAL_TOKEN, says why, and never echoes a short one', () => {
    expect(() => loadGatewayConfig({ API_TOKENS: TOKENS })).toThrow(
      /INTERNAL_TOKEN: is required: the shared internal credential/,
    );
    let message = '';
    try {
      loadGatewayConfig({ API_TOKENS: TOKENS, INTERNAL_TOKEN: 'short-secret-value' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/INTERNAL_TOKEN: must be at least 32 characters/);
    expect(message).not.toContain('short-secret-value');
  });
});
