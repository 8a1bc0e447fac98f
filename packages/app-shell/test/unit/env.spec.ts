import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { parseEnv, redactCredentials } from '../../src/config/env-validation.js';
import { envRedisUrl } from '../../src/config/redis-env.js';
import { shellEnv } from '../../src/config/shell-env.js';

describe('redactCredentials', () => {
  it.each([
    ['redis://:s3cret-pw@redis:6379', 'redis://***@redis:6379'],
    ['rediss://default:s3cret-pw@redis:6380/0', 'rediss://***@redis:6380/0'],
    [
      'connect to redis://u:p@a:1 and http://v:q@b:2 failed',
      'connect to redis://***@a:1 and http://***@b:2 failed',
    ],
    ['redis://redis:6379', 'redis://redis:6379'],
    ['redis://s3cret-pw@redis:6379', 'redis://***@redis:6379'],
  ])('%s -> %s', (value, redacted) => {
    expect(redactCredentials(value)).toBe(redacted);
  });
});

describe('parseEnv', () => {
  const schema = z.object({ REDIS_URL: envRedisUrl(), ...shellEnv('127.0.0.1') });

  it('names an invalid REDIS_URL without echoing its password', () => {
    let message = '';
    try {
      parseEnv(schema, { REDIS_URL: 'http://:hunter2-password@redis:6379' }, { service: 'test' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('REDIS_URL="http://***@redis:6379": must be a redis:// or rediss:// URL');
    expect(message).not.toContain('hunter2');
  });

  it('reads HOST and DRAIN_TIMEOUT_MS with their defaults', () => {
    const env = parseEnv(schema, { REDIS_URL: 'redis://:pw@redis:6379' }, { service: 'test' });
    expect([env.HOST, env.DRAIN_TIMEOUT_MS]).toEqual(['127.0.0.1', 10_000]);
  });

  it("reads LOG_LEVEL as one of pino's level names (default info), and names a wrong one", () => {
    const read = (LOG_LEVEL?: string) =>
      parseEnv(schema, { REDIS_URL: 'redis://redis:6379', LOG_LEVEL }, { service: 'test' }).LOG_LEVEL;
    expect([read(), read('debug'), read('silent')]).toEqual(['info', 'debug', 'silent']);
    expect(() => read('verbose')).toThrow(
      'LOG_LEVEL="verbose": must be one of trace, debug, info, warn, error, fatal, silent',
    );
  });
});
