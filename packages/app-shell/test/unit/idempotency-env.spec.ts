import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { parseEnv } from '../../src/config/env-validation.js';
import {
  IDEMPOTENCY_VARIABLES,
  idempotencyEnv,
  type IdempotencySetting,
} from '../../src/config/idempotency-env.js';

const EVERY = Object.keys(IDEMPOTENCY_VARIABLES) as IdempotencySetting[];
const ALL = idempotencyEnv(EVERY, { commandTimeoutMs: { min: 1, max: 60_000, default: 1_000 } });
const schema = z.object(ALL.env);
const read = (env: Record<string, string | undefined>) =>
  ALL.configOf(parseEnv(schema, env, { service: 'test' }));

describe('idempotencyEnv: each IDEMPOTENCY_* setting declared once', () => {
  it('reads the defaults', () => {
    // In the order the settings are declared.
    expect(Object.entries(read({}))).toEqual([
      ['enabled', true],
      ['inFlight', 'raise'],
      ['ttlMs', 3_600_000],
      ['leaseMs', 30_000],
      ['renewLease', true],
      ['onStoreUnavailable', 'fail-closed'],
      ['keyPrefix', 'idem:'],
      ['commandTimeoutMs', 1_000],
    ]);
  });

  it('reads every variable into its field', () => {
    // Each setting: the variable's text, and the value the config gets.
    const given: Record<IdempotencySetting, readonly [string, unknown]> = {
      enabled: ['false', false],
      inFlight: ['run', 'run'],
      ttlMs: ['1500', 1_500],
      leaseMs: ['1000', 1_000],
      renewLease: ['false', false],
      onStoreUnavailable: ['fail-open', 'fail-open'],
      keyPrefix: ['test:{idem}:', 'test:{idem}:'],
      commandTimeoutMs: ['200', 200],
    };
    const env = Object.fromEntries(EVERY.map((field) => [IDEMPOTENCY_VARIABLES[field], given[field][0]]));
    expect(read(env)).toEqual(Object.fromEntries(EVERY.map((field) => [field, given[field][1]])));
  });

  it('names each invalid variable with its rule', () => {
    const invalid = {
      IDEMPOTENCY_ENABLED: ['nope', "must be 'true' or 'false'"],
      IDEMPOTENCY_IN_FLIGHT: ['maybe', "must be 'raise', 'wait' or 'run'"],
      IDEMPOTENCY_TTL_MS: ['500', 'must be between 1000 and 2592000000'],
      IDEMPOTENCY_LEASE_MS: ['3600001', 'must be between 10 and 3600000'],
      IDEMPOTENCY_ON_STORE_UNAVAILABLE: ['fail-sometimes', "must be 'fail-closed' or 'fail-open'"],
      IDEMPOTENCY_KEY_PREFIX: ['has space', 'must be 1-64 characters of [A-Za-z0-9_.:{}-]'],
      IDEMPOTENCY_COMMAND_TIMEOUT_MS: ['0', 'must be between 1 and 60000'],
    };
    const env = Object.fromEntries(Object.entries(invalid).map(([name, [value]]) => [name, value]));
    const lines = Object.entries(invalid).map(([name, [value, rule]]) => `  ${name}="${value}": ${rule}`);
    expect(() => read(env)).toThrow(['test: invalid environment', ...lines].join('\n'));
  });

  it('declares only the settings a service reads, with its own floor for the lease', () => {
    const worker = idempotencyEnv(['enabled', 'leaseMs'], { minLeaseMs: 100 });
    expect(Object.keys(worker.env)).toEqual(['IDEMPOTENCY_ENABLED', 'IDEMPOTENCY_LEASE_MS']);
    const parsed = z.object(worker.env).safeParse({ IDEMPOTENCY_LEASE_MS: '99' });
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual(['must be between 100 and 3600000']);
  });

  it('needs the store range to read IDEMPOTENCY_COMMAND_TIMEOUT_MS', () => {
    expect(() => idempotencyEnv(['commandTimeoutMs'])).toThrow(/commandTimeoutMs/);
  });
});

describe('idempotencyEnv: the PUT /__config fields, with the same ranges as the variables', () => {
  const overrides = z.strictObject(ALL.overrides(['enabled', 'inFlight', 'leaseMs', 'onStoreUnavailable']));

  it('accepts each setting as JSON, every field optional', () => {
    expect(overrides.parse({})).toEqual({});
    expect(
      overrides.parse({ enabled: false, inFlight: 'wait', leaseMs: 10, onStoreUnavailable: 'fail-open' }),
    ).toEqual({ enabled: false, inFlight: 'wait', leaseMs: 10, onStoreUnavailable: 'fail-open' });
  });

  it.each([
    ['a lease under the floor', { leaseMs: 9 }],
    ['a lease over an hour', { leaseMs: 3_600_001 }],
    ['a string for a boolean', { enabled: 'false' }],
    ['an unknown mode', { inFlight: 'sometimes' }],
    ['a setting not switchable', { ttlMs: 5_000 }],
  ])('refuses %s', (_label, body) => {
    expect(overrides.safeParse(body).success).toBe(false);
  });
});
