import { describe, expect, it } from '@jest/globals';
import { isIso4217Currency } from '../../src/currencies.js';
import {
  MAX_AMOUNT_MINOR,
  OrderPaymentSchema as CreatePaymentSchema,
  PaymentCommandSchema,
} from '../../src/payment-command.js';

describe('OrderPaymentSchema (the body of POST /v1/orders/{orderId}/payments)', () => {
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

describe('PaymentCommandSchema (orders to payments)', () => {
  const command = {
    tenantId: 'A0000000-0000-4000-8000-00000000000A',
    orderId: '6c1f4b6e-8b1e-4c3a-9f55-2d3c4b5a6978',
    amount: 1999,
    currency: 'EUR',
  };

  it('normalises the ids to lower case and keeps the amount and currency', () => {
    expect(PaymentCommandSchema.parse(command)).toEqual({
      ...command,
      tenantId: 'a0000000-0000-4000-8000-00000000000a',
    });
  });

  it('applies the same amount and currency rules as the order payment', () => {
    expect(PaymentCommandSchema.safeParse({ ...command, amount: MAX_AMOUNT_MINOR + 1 }).success).toBe(false);
    expect(PaymentCommandSchema.safeParse({ ...command, currency: 'XXX' }).success).toBe(false);
  });
});
