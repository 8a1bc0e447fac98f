import { describe, expect, it } from '@jest/globals';
import { FaultInjector, handleFaultAdmin } from '../../src/index.js';

const rule = { method: 'POST', path: '/v1/payments', at: 'after-handler', action: 'drop', times: 1 };

describe('handleFaultAdmin', () => {
  it('PUT replaces the rules and answers them with fired counts', async () => {
    const faults = new FaultInjector();
    const reply = await handleFaultAdmin(faults, 'PUT', async () => ({ rules: [rule] }));
    expect(reply).toEqual({ status: 200, body: { rules: [{ ...rule, fired: 0 }], requests: {} } });
  });

  it('PUT with a bad rule set answers 400 validation_failed and changes nothing', async () => {
    const faults = new FaultInjector();
    faults.replaceRules({ rules: [rule] });

    const reply = await handleFaultAdmin(faults, 'PUT', async () => ({
      rules: [{ ...rule, action: 'explode' }],
    }));

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ status: 400, code: 'validation_failed', type: 'about:blank' });
    expect(faults.snapshot().rules).toHaveLength(1);
  });

  it('GET reads, DELETE clears, other methods are 405', async () => {
    const faults = new FaultInjector();
    faults.replaceRules({ rules: [rule] });
    faults.countRequest('POST', '/v1/payments');

    expect((await handleFaultAdmin(faults, 'GET', async () => undefined)).body).toMatchObject({
      requests: { 'POST /v1/payments': 1 },
    });
    expect(await handleFaultAdmin(faults, 'DELETE', async () => undefined)).toEqual({ status: 204 });
    expect(faults.snapshot()).toEqual({ rules: [], requests: {} });
    expect(await handleFaultAdmin(faults, 'POST', async () => undefined)).toMatchObject({
      status: 405,
      headers: { allow: 'GET, PUT, DELETE' },
    });
  });
});
