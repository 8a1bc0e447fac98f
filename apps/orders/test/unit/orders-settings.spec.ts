import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { ValidationFailedError } from '@retry-safe/app-shell/http';
import { RuntimeSettings } from '@retry-safe/app-shell/admin';
import { ORDERS_DESIGNS, demonstrationModes, ordersSettings } from '../../src/config/orders-settings.js';

describe("orders' runtime settings", () => {
  it('start with the designs, whatever the environment (no variable sets a demonstration)', () => {
    expect(ordersSettings().initial).toEqual({
      createRecord: 'transaction',
      applyCharge: 'unique-constraint',
      balanceCheck: 'reservation',
      invoicePublish: 'outbox',
    });
    expect(demonstrationModes(ORDERS_DESIGNS)).toEqual([]);
  });

  it.each([
    [{ createRecord: 'redis' }, 'createRecord=redis'],
    [{ applyCharge: 'read-then-write' }, 'applyCharge=read-then-write'],
    [{ balanceCheck: 'read-then-write' }, 'balanceCheck=read-then-write'],
    [{ invoicePublish: 'publish-after-commit' }, 'invoicePublish=publish-after-commit'],
  ])('switch %j on, and log it as a DEMONSTRATION MODE', (overrides, label) => {
    const settings = new RuntimeSettings(ordersSettings());
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      settings.replace(overrides);
      expect(settings.current).toEqual({ ...ORDERS_DESIGNS, ...overrides });
      const messages = warn.mock.calls.map(([entry]) => (entry as { msg: string }).msg);
      expect(messages.filter((msg) => msg.includes('DEMONSTRATION MODE'))).toEqual([
        expect.stringContaining(label),
      ]);
    } finally {
      warn.mockRestore();
    }
    settings.reset();
    expect(settings.current).toEqual(ORDERS_DESIGNS);
  });

  it.each([[{ createRecord: 'memory' }], [{ applyCharge: true }], [{ outbox: false }]])(
    'refuse %j (400 validation_failed), keeping what was in force',
    (body) => {
      const settings = new RuntimeSettings(ordersSettings());
      expect(() => settings.replace(body)).toThrow(ValidationFailedError);
      expect(settings.current).toEqual(ORDERS_DESIGNS);
    },
  );
});
