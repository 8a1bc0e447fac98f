import { describe, expect, it } from '@jest/globals';
import { isIso4217Currency } from '../../src/payments/currencies.js';
import { CreatePaymentSchema, MAX_AMOUNT_MINOR } from '../../src/payments/create-payment.schema.js';

describe('CreatePaymentSchema', () => {
  it('accepts a positive integer amount in a real currency', () => {
    expect(CreatePaymentSchema.parse({ amount: 1999, currency: 'EUR' })).toEqual({
      amount: 1999,
      currency: 'EUR',
    });
    expect(CreatePaymentSchema.safeParse({ amount: MAX_AMOUNT_MINOR, currency: 'JPY' }).success).toBe(true);
  });

  it.each([
    { amount: 0, currency: 'EUR' },
    { amount: -5, currency: 'EUR' },
    { amount: 1.5, currency: 'EUR' },
    { amount: MAX_AMOUNT_MINOR + 1, currency: 'EUR' },
    { amount: Number.MAX_SAFE_INTEGER + 2, currency: 'EUR' },
    { amount: '100', currency: 'EUR' },
    { amount: 100, currency: 'eur' },
    { amount: 100, currency: 'XXX' },
    { amount: 100, currency: 'ABC' },
    { amount: 100 },
    { amount: 100, currency: 'EUR', extra: true },
    [100, 'EUR'],
  ])('refuses %j', (body) => {
    expect(CreatePaymentSchema.safeParse(body).success).toBe(false);
  });
});

describe('isIso4217Currency', () => {
  it('knows the currencies in circulation and nothing else', () => {
    for (const code of ['EUR', 'USD', 'JPY', 'CHF', 'XOF', 'ZWG', 'VES'])
      expect(isIso4217Currency(code)).toBe(true);
    for (const code of ['XXX', 'XTS', 'XAU', 'HRK', 'eur', 'EURO', ''])
      expect(isIso4217Currency(code)).toBe(false);
  });
});
