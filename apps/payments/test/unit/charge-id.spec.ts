import { describe, expect, it } from '@jest/globals';
import { ChargeSchema } from '@retry-safe/contracts';
import { chargeIdOf } from '../../src/payments/charge-id.js';

const operation = 'payment.charge.a000000000004000800000000000000a';

describe('chargeIdOf', () => {
  it('is a version 5 UUID that the Charge schema accepts, the same for the same inputs', () => {
    const id = chargeIdOf(operation, 'k-1', 'ch_1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(chargeIdOf(operation, 'k-1', 'ch_1')).toBe(id);
    expect(() => ChargeSchema.shape.id.parse(id)).not.toThrow();
  });

  it('differs when the operation (tenant), the key or the provider charge differs', () => {
    const ids = new Set([
      chargeIdOf(operation, 'k-1', 'ch_1'),
      chargeIdOf('payment.charge.b000000000004000800000000000000b', 'k-1', 'ch_1'),
      chargeIdOf(operation, 'k-2', 'ch_1'),
      chargeIdOf(operation, 'k-1', 'ch_2'),
      // The separator keeps the names apart: "k-1\nch" + "_1" is not "k-1" + "ch_1".
      chargeIdOf(operation, 'k-1\nch', '_1'),
    ]);
    expect(ids.size).toBe(5);
  });
});
