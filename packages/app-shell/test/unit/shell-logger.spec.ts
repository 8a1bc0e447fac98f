import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { withLogContext } from '../../src/logging/log-context.js';
import { REDACTED, createShellLogger, type LogLevel } from '../../src/logging/shell-logger.js';

/** A shell logger writing into an array, parsed. */
function capture(level?: LogLevel) {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line));
      }
      done();
    },
  });
  return { logger: createShellLogger({ service: 'unit', level, destination }), lines, raw };
}

describe('createShellLogger', () => {
  it('writes at LOG_LEVEL and above, the level as a name', () => {
    const { logger, lines } = capture('warn');
    logger.debug('debug');
    logger.info('info');
    logger.warn('warn');
    logger.error('error');
    expect(lines.map((line) => [line['level'], line['msg']])).toEqual([
      ['warn', 'warn'],
      ['error', 'error'],
    ]);
  });

  it("redacts keys, tokens and credentials, an HTTP client error's headers included", () => {
    const { logger, lines } = capture();
    logger.warn({
      msg: 'secrets',
      idempotencyKey: 'k1',
      token: 't1',
      password: 'p1',
      credentials: { user: 'u', secret: 'k2' },
      headers: { authorization: 'Bearer t2', 'idempotency-key': 'k3', 'x-request-id': 'r1' },
      err: { config: { headers: { Authorization: 'Bearer t3', 'Idempotency-Key': 'k4' } } },
    });
    expect(lines[0]).toMatchObject({
      idempotencyKey: REDACTED,
      token: REDACTED,
      password: REDACTED,
      credentials: REDACTED,
      headers: { authorization: REDACTED, 'idempotency-key': REDACTED, 'x-request-id': 'r1' },
      err: { config: { headers: { Authorization: REDACTED, 'Idempotency-Key': REDACTED } } },
    });
    expect(JSON.stringify(lines)).not.toMatch(/k[1-4]|t[1-3]|p1/);
  });

  it("adds the unit of work's fields; a line's own field wins, once", () => {
    const { logger, lines, raw } = capture();
    withLogContext({ requestId: 'r-1', jobId: 'j-1' }, () => {
      logger.info('inside');
      logger.info({ requestId: 'r-own' }, 'own');
    });
    logger.info('outside');
    expect(lines[0]).toMatchObject({ requestId: 'r-1', jobId: 'j-1', service: 'unit' });
    expect(lines[1]!['requestId']).toBe('r-own');
    expect(raw[1]!.match(/"requestId"/g)).toHaveLength(1);
    expect(lines[2]).not.toHaveProperty('requestId');
  });
});
