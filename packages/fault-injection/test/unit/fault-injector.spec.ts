import { describe, expect, it } from '@jest/globals';
import {
  FaultInjectedError,
  FaultInjector,
  FaultRulesInvalidError,
  type FaultRuleInput,
} from '../../src/index.js';

const drop = (extra: Partial<FaultRuleInput> = {}): FaultRuleInput =>
  ({ method: 'POST', path: '/v1/payments', at: 'after-handler', action: 'drop', ...extra }) as FaultRuleInput;

describe('FaultInjector rules', () => {
  it('fires a matching rule at its phase only, and counts it', () => {
    const faults = new FaultInjector();
    faults.replaceRules({ rules: [drop({ method: 'post' })] });

    expect(faults.decide('POST', '/v1/payments', 'before-handler')).toBeUndefined();
    expect(faults.decide('GET', '/v1/payments', 'after-handler')).toBeUndefined();
    expect(faults.decide('POST', '/v1/payments?x=1', 'after-handler')).toMatchObject({
      action: 'drop',
      method: 'POST',
    });
    expect(faults.snapshot().rules).toEqual([expect.objectContaining({ fired: 1 })]);
  });

  it('fires a rule with `times` that many times, then lets the next rule or nothing apply', () => {
    const faults = new FaultInjector();
    faults.replaceRules({
      rules: [drop({ times: 2 }), { ...drop(), action: 'delay', ms: 5, times: 1 } as FaultRuleInput],
    });

    const actions = [1, 2, 3, 4].map(() => faults.decide('POST', '/v1/payments', 'after-handler')?.action);

    expect(actions).toEqual(['drop', 'drop', 'delay', undefined]);
    expect(faults.snapshot().rules.map((r) => r.fired)).toEqual([2, 1]);
  });

  it('matches * segments', () => {
    const faults = new FaultInjector();
    faults.replaceRules({ rules: [drop({ path: '/v1/orders/*/payments' })] });

    expect(faults.decide('POST', '/v1/orders/o1/payments', 'after-handler')).toBeDefined();
    expect(faults.decide('POST', '/v1/orders/o1', 'after-handler')).toBeUndefined();
  });

  it('applies `probability` with the injected random source', () => {
    const rolls = [0.1, 0.9, 0.49];
    const faults = new FaultInjector({ random: () => rolls.shift() ?? 1 });
    faults.replaceRules({ rules: [drop({ probability: 0.5 })] });

    const hits = [1, 2, 3].map(() => faults.decide('POST', '/v1/payments', 'after-handler') !== undefined);

    expect(hits).toEqual([true, false, true]);
    expect(faults.snapshot().rules[0]?.fired).toBe(2);
  });

  it('matches on a request header when `match` is given (header name in any case)', () => {
    const faults = new FaultInjector();
    faults.replaceRules({ rules: [drop({ match: { header: 'Idempotency-Key', value: 'k1' } })] });

    expect(
      faults.decide('POST', '/v1/payments', 'after-handler', { 'idempotency-key': 'k2' }),
    ).toBeUndefined();
    expect(faults.decide('POST', '/v1/payments', 'after-handler')).toBeUndefined();
    expect(faults.decide('POST', '/v1/payments', 'after-handler', { 'idempotency-key': 'k1' })).toBeDefined();
  });

  it('rejects an invalid rule set as a whole and keeps the old rules', () => {
    const faults = new FaultInjector();
    faults.replaceRules({ rules: [drop()] });
    const invalid: unknown[] = [
      undefined,
      [],
      { rules: [drop({ at: 'during' as never })] },
      { rules: [{ ...drop(), action: 'delay' }] },
      { rules: [{ ...drop(), action: 'status', status: 200, code: 'x' }] },
      { rules: [drop({ times: 0 })] },
      { rules: [drop({ probability: 2 })] },
      { rules: [{ ...drop(), tims: 1 }] },
      { rules: [drop(), drop({ path: '' })] },
    ];

    for (const body of invalid) {
      expect(() => faults.replaceRules(body)).toThrow(FaultRulesInvalidError);
    }
    const error = (() => {
      try {
        faults.replaceRules({ rules: [{ ...drop(), action: 'delay' }] });
      } catch (e) {
        return e as FaultRulesInvalidError;
      }
    })();
    expect(error).toMatchObject({ code: 'FAULT_RULES_INVALID', issues: [{ path: 'rules.0.ms' }] });
    expect(faults.snapshot().rules).toEqual([
      expect.objectContaining({ action: 'drop', path: '/v1/payments' }),
    ]);
  });

  it('restarts `fired` when the rules are replaced', () => {
    const faults = new FaultInjector();
    faults.replaceRules({ rules: [drop({ times: 1 })] });
    faults.decide('POST', '/v1/payments', 'after-handler');

    const rules = faults.replaceRules({ rules: [drop({ times: 1 })] });

    expect(rules[0]?.fired).toBe(0);
    expect(faults.decide('POST', '/v1/payments', 'after-handler')).toBeDefined();
  });
});

describe('FaultInjector counters', () => {
  it('counts requests by method and route, and clear() resets rules and counters', () => {
    const faults = new FaultInjector();
    faults.replaceRules({ rules: [drop()] });
    faults.countRequest('POST', '/v1/orders/:orderId/payments');
    faults.countRequest('post', '/v1/orders/:orderId/payments');
    faults.countRequest('GET', '/v1/charges');

    expect(faults.snapshot().requests).toEqual({
      'POST /v1/orders/:orderId/payments': 2,
      'GET /v1/charges': 1,
    });
    expect(faults.requestCount('POST', '/v1/orders/:orderId/payments')).toBe(2);

    faults.clear();

    expect(faults.snapshot()).toEqual({ rules: [], requests: {} });
  });

  it('keeps request counters when the rules are replaced', () => {
    const faults = new FaultInjector();
    faults.countRequest('POST', '/v1/payments');
    faults.replaceRules({ rules: [] });
    expect(faults.requestCount('POST', '/v1/payments')).toBe(1);
  });
});

describe('FaultInjector.injectAt (non-HTTP fault points)', () => {
  it('throws FaultInjectedError for drop and status, waits for delay, and passes otherwise', async () => {
    const faults = new FaultInjector();
    faults.replaceRules({
      rules: [
        { method: 'JOB', path: 'invoices/after-send', at: 'after-handler', action: 'drop', times: 1 },
        {
          method: 'JOB',
          path: 'invoices/after-send',
          at: 'after-handler',
          action: 'delay',
          ms: 30,
          times: 1,
        },
        {
          method: 'JOB',
          path: 'invoices/before-send',
          at: 'before-handler',
          action: 'status',
          status: 503,
          code: 'smtp_down',
          match: { header: 'job-id', value: '7' },
        },
      ],
    });

    await expect(faults.injectAt('invoices/after-send')).rejects.toMatchObject({
      code: 'FAULT_INJECTED',
      point: 'invoices/after-send',
      rule: { action: 'drop' },
    });
    const started = Date.now();
    await faults.injectAt('invoices/after-send');
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    await expect(faults.injectAt('invoices/after-send')).resolves.toBeUndefined();
    await expect(faults.injectAt('invoices/before-send', { at: 'before-handler' })).resolves.toBeUndefined();
    const error = await faults
      .injectAt('invoices/before-send', { at: 'before-handler', headers: { 'job-id': '7' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FaultInjectedError);
    expect(error).toMatchObject({ rule: { status: 503, code: 'smtp_down' } });
  });
});
