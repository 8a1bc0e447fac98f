import { afterEach, describe, expect, it } from '@jest/globals';
import { freePort } from '@retry-safe/testing';
import {
  FAULT_POINT_METHOD,
  FaultInjectedError,
  FaultInjector,
  createFaultAdminServer,
  type FaultAdminServer,
} from '../../src/index.js';
import { call } from './support/http-call.js';

describe('createFaultAdminServer (non-HTTP apps)', () => {
  let server: FaultAdminServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves the same /__faults API over the rules and counters of a worker', async () => {
    const injector = new FaultInjector();
    server = await createFaultAdminServer({ injector, port: await freePort() });
    const rules = [
      {
        method: FAULT_POINT_METHOD,
        path: 'invoices/after-send',
        at: 'after-handler',
        action: 'drop',
        times: 1,
      },
    ];

    expect((await call(`${server.url}/__faults`, 'PUT', { rules })).status).toBe(200);
    injector.countRequest('JOB', 'invoices/send');
    const first = await injector.injectAt('invoices/after-send').catch((e: unknown) => e);
    injector.countRequest('JOB', 'invoices/send');
    await injector.injectAt('invoices/after-send');

    expect(first).toBeInstanceOf(FaultInjectedError);
    expect((await call(`${server.url}/__faults`, 'GET')).json).toEqual({
      rules: [{ ...rules[0], fired: 1 }],
      requests: { 'JOB invoices/send': 2 },
    });
  });

  it('answers 400 problem+json for malformed JSON, 404 elsewhere, and 204 on DELETE', async () => {
    server = await createFaultAdminServer({ injector: new FaultInjector(), port: 0 });

    const malformed = await call(`${server.url}/__faults`, 'PUT', '{"rules": [', {});
    expect(malformed.status).toBe(400);
    expect(malformed.headers['content-type']).toBe('application/problem+json');
    expect(malformed.json).toMatchObject({ code: 'validation_failed' });
    expect((await call(`${server.url}/elsewhere`, 'GET')).status).toBe(404);
    expect((await call(`${server.url}/__faults`, 'DELETE')).status).toBe(204);
  });
});
