/**
 * The chaos run (issue 5), small: 40 payments (some sent twice at once) from retrying clients while every hop
 * drops connections (p = 0.2), the provider loses responses (p = 0.1) and a payments process is SIGKILLed and
 * started again twice. With provider dedup on, every payment ends with exactly one provider charge and one 201
 * Charge, identical on every replay. `pnpm chaos` runs the same engine with 500 payments.
 */
import { describe, expect, it } from '@jest/globals';
import { formatChaosReport, runChaos } from '@retry-safe/scenarios';

const PAYMENTS = 40;
const KILLS = 2;

describe('chaos: drops at every hop, lost provider responses, payments kills', () => {
  it(`${PAYMENTS} payments, ${KILLS} kills, provider dedup on: 0 duplicates, 0 lost, every replay identical`, async () => {
    const report = await runChaos({ payments: PAYMENTS, kills: KILLS, providerDedup: true });
    const table = formatChaosReport(report);

    // The table is the failure message: it names the seed, and the first problems found.
    expect({ ok: report.ok, table }).toEqual({ ok: true, table });
    expect(report.duplicates).toBe(0);
    expect(report.lost).toBe(0);
    expect(report.replayMismatches).toBe(0);
    expect(report.strayCharges).toBe(0);
    expect(report.charges).toBe(PAYMENTS);
    expect(report.kills).toBe(KILLS);
    // The chaos did happen: drops fired at every hop and the clients had to retry.
    expect(report.drops.gateway + report.drops.orders + report.drops.payments).toBeGreaterThan(0);
    expect(report.clientAttempts).toBeGreaterThan(PAYMENTS + report.sentTwice);
    expect(report.calls.payments).toBeGreaterThan(PAYMENTS);
  });
});
