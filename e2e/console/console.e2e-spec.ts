/**
 * The console in a real browser: the page runs `chain` and `overpay` on the live stack and shows the numbers the
 * definitions expect, draws the arrows that happened, and traces one explorer payment whose answer was lost. Its
 * controls are labelled and reachable by keyboard, and it logs no error. The screenshots in docs/ are made here.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { chainScenario, overpayScenario } from '@retry-safe/scenarios';
import { SCREENSHOTS, measured, openConsole, tabTo, type ConsoleSession } from './console-page.js';

describe('console', () => {
  let session: ConsoleSession | undefined;
  const page = () => {
    if (session === undefined) throw new Error('the console did not start (beforeAll failed?)');
    return session.page;
  };

  beforeAll(async () => {
    session = await openConsole();
    await session.page.getByText('Stack up').waitFor({ timeout: 140_000 });
  }, 150_000);

  afterAll(async () => {
    await session?.close();
  }, 30_000);

  it('runs chain from the keyboard: 2 calls to orders, 3 to payments, 1 charge where the key is propagated', async () => {
    await page().getByRole('button', { name: 'chain', exact: true }).click();
    const runAll = `Run all ${chainScenario.rows.length} rows`;
    await tabTo(page(), runAll);
    await page().keyboard.press('Enter');
    await page()
      .getByText(/^Done in/)
      .waitFor({ timeout: 30_000 });

    for (const row of chainScenario.rows) {
      expect(await measured(page(), row.design, 'calls to orders / payments')).toBe(row.expected[0]);
      expect(await measured(page(), row.design, 'provider charges')).toBe(row.expected[1]);
    }
    expect(await measured(page(), 'key propagated', 'provider charges')).toBe('1');
    const diagram = page().getByRole('img', { name: 'Sequence diagram of chain: key propagated' });
    await expect(diagram.locator('g.arrow[data-kind="call"][data-to="Orders"]').count()).resolves.toBe(2);
    await expect(diagram.locator('g.arrow[data-kind="call"][data-to="Payments"]').count()).resolves.toBe(3);
    await expect(
      diagram.locator('g.arrow[data-from="Provider"]', { hasText: 'card charged' }).count(),
    ).resolves.toBe(1);
    await expect(diagram.locator('g.arrow[data-kind="lost"]').count()).resolves.toBe(2);
    await page().screenshot({ path: join(SCREENSHOTS, 'console-chain.png') });
  }, 40_000);

  it('runs overpay: read-then-write charges 5 times, the reservation once', async () => {
    await page().getByRole('button', { name: 'overpay', exact: true }).click();
    await page()
      .getByRole('button', { name: `Run all ${overpayScenario.rows.length} rows` })
      .click();
    await page()
      .getByText(/^Done in/)
      .waitFor({ timeout: 30_000 });

    expect(await measured(page(), 'read-then-write', 'provider charges')).toBe('5');
    expect(await measured(page(), 'read-then-write', 'charged')).toBe('25000');
    expect(await measured(page(), 'reservation', 'provider charges')).toBe('1');
    expect(await measured(page(), 'reservation', 'charged')).toBe('5000');
    for (const row of overpayScenario.rows) {
      const cells = await Promise.all(
        overpayScenario.columns.slice(1).map((c) => measured(page(), row.design, c)),
      );
      expect(cells).toEqual(row.expected);
    }
    await page().screenshot({ path: join(SCREENSHOTS, 'console-overpay.png') });
  }, 40_000);

  it('traces an explorer payment whose answer is lost after payments: retried, 1 charge', async () => {
    await page().getByRole('button', { name: 'Payment explorer' }).click();
    await page().getByLabel('Amount (cents, EUR)').fill('2500');
    await page().getByLabel('Idempotency key').fill(`e2e-explorer-${Date.now()}`);
    await page().getByLabel('Lose the answer after payments').check();
    await tabTo(page(), 'Send payment');
    await page().keyboard.press('Enter');
    await page()
      .getByText(/^Done in/)
      .waitFor({ timeout: 30_000 });

    await expect(page().getByTestId('charges').textContent()).resolves.toBe('1');
    await expect(page().getByTestId('answer').textContent()).resolves.toBe('201');
    const attempts = page().getByRole('table', { name: /Attempts per hop/ });
    await expect(attempts.locator('tr[data-service="payments"]').count()).resolves.toBe(2);
    await expect(attempts.getByText('answer lost').count()).resolves.toBe(1);
    const diagram = page().getByRole('img', { name: 'Sequence diagram of the payment' });
    await expect(diagram.locator('g.arrow[data-kind="call"][data-to="Payments"]').count()).resolves.toBe(2);
    await expect(diagram.locator('g.arrow.retry').count()).resolves.toBe(1);
    await page().screenshot({ path: join(SCREENSHOTS, 'console-explorer.png'), fullPage: true });
  }, 40_000);

  it('logged no error in the browser', () => {
    expect(session?.errors).toEqual([]);
  });
});
