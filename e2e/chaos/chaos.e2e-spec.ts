/**
 * The chaos run, small: 24 orders created, paid (some in several payments, some requests sent twice at once) and
 * half of them invoiced by retrying clients, while every hop drops connections (p = 0.2), the provider loses
 * responses (p = 0.1), and an orders process (of two) and a payments process (of two) are each SIGKILLed and
 * started again twice. With provider dedup on, every order has one row and `paidAmount` equal to its provider
 * charges, every payment one charge and one row, every invoice one email, every replay the same bytes.
 * `pnpm chaos` runs the same engine with 200 orders.
 */
import { describe, expect, it } from '@jest/globals';
import { formatChaosReport, runChaos } from '@retry-safe/scenarios';

const ORDERS = 24;
const KILLS = 2;
// About 20 s (half of it starting the stack); the ceiling leaves room for a loaded machine.
const TIMEOUT_MS = 90_000;

describe('chaos: drops at every hop, lost provider responses, orders and payments kills', () => {
  it(
    `${ORDERS} orders, ${KILLS} + ${KILLS} kills, provider dedup on: nothing lost, applied or sent twice`,
    async () => {
      const report = await runChaos({
        orders: ORDERS,
        kills: KILLS,
        ordersKills: KILLS,
        providerDedup: true,
      });
      const table = formatChaosReport(report);

      // The table is the failure message: it names the seed, and the first problems found.
      expect({ ok: report.ok, table }).toEqual({ ok: true, table });
      expect(report.orders).toEqual({
        lost: 0,
        strayRows: 0,
        replayMismatches: 0,
        paidMismatches: 0,
        appliedTwice: 0,
        notApplied: 0,
        overpaid: 0,
      });
      expect(report.payments).toEqual({
        // Every payment charged once, but those refused as more than their order owed.
        charges: report.planned.payments - report.payments.refused,
        duplicates: 0,
        lost: 0,
        replayMismatches: 0,
        strayCharges: 0,
        refused: report.payments.refused,
      });
      // Some orders asked more than they owed, at once: at least the excess was refused, and nothing paid past it.
      expect(report.planned.overpaying).toBeGreaterThan(0);
      expect(report.payments.refused).toBeGreaterThanOrEqual(report.planned.overpaying);
      expect(report.invoices).toEqual({
        requested: report.planned.invoices,
        emails: report.planned.invoices,
        lost: 0,
        duplicates: 0,
      });
      expect(report.kills).toEqual({ orders: KILLS, payments: KILLS });
      // The plan exercises what the checks are about: orders paid in several payments, invoices.
      expect(report.planned.multiPaymentOrders).toBeGreaterThan(0);
      expect(report.planned.invoices).toBeGreaterThan(0);
      // The chaos did happen: drops fired at every hop and the clients had to retry.
      expect(report.drops.gateway + report.drops.orders + report.drops.payments).toBeGreaterThan(0);
      expect(report.clientAttempts).toBeGreaterThan(
        ORDERS + report.planned.payments + report.planned.invoices,
      );
    },
    TIMEOUT_MS,
  );
});
