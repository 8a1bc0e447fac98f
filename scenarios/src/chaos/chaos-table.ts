/** The table `pnpm chaos` prints. */
import type { ChaosReport, PerService } from './chaos-report.js';

const pad = (text: string | number, width: number): string => String(text).padStart(width);
const line = (label: string, value: string | number, note = ''): string =>
  `${label.padEnd(30)}${pad(value, 9)}${note ? `   ${note}` : ''}`;
const row = (label: string, values: PerService): string =>
  `${label.padEnd(30)}${pad(values.gateway, 9)}${pad(values.orders, 9)}${pad(values.payments, 10)}${pad(values.provider, 10)}`;

export function formatChaosReport(report: ChaosReport): string {
  const o = report.options;
  const p = report.planned;
  return [
    `chaos run: seed ${o.seed}, provider dedup ${o.providerDedup ? 'on' : 'off'}, 2 orders and 2 payments replicas, lease ${o.leaseMs} ms, provider latency ${o.providerLatencyMs} ms`,
    `faults: each hop drops p=${o.dropProbability} (half before, half after its handler) on order creation, payments and invoice requests; the provider loses responses p=${o.lostResponseProbability}`,
    '',
    line('orders', p.orders, `${p.multiPaymentOrders} paid in several payments, ${p.paidInFull} in full`),
    line(
      'payments',
      p.payments,
      `each its own key; ${p.sentTwice} creations and payments sent twice at once`,
    ),
    line('invoices requested', p.invoices, 'once the payments of their order are answered'),
    line('client attempts', report.clientAttempts, 'clients retry with the same key until a final answer'),
    `${''.padEnd(30)}${pad('gateway', 9)}${pad('orders', 9)}${pad('payments', 10)}${pad('provider', 10)}`,
    row('calls', report.calls),
    row('drops (provider: lost)', report.drops),
    line(
      'kills',
      report.kills.orders + report.kills.payments,
      `SIGKILL of an orders process ${report.kills.orders}, of a payments process ${report.kills.payments}; each started again`,
    ),
    '',
    ...ordersLines(report),
    ...paymentsLines(report),
    ...invoicesLines(report),
    '',
    line('duration', `${(report.durationMs / 1000).toFixed(1)} s`),
    line(
      'result',
      report.ok ? 'OK' : 'FAILED',
      report.ok && !o.providerDedup
        ? 'nothing lost; the duplicate charges are what provider dedup off costs'
        : '',
    ),
    ...(report.problems.length > 0 ? ['', 'problems:', ...report.problems.map((text) => `  ${text}`)] : []),
  ].join('\n');
}

function ordersLines({ orders, options }: ChaosReport): string[] {
  const charges = options.providerDedup ? 'its provider charges' : 'one provider charge per key';
  return [
    'orders',
    line('  lost', orders.lost, 'must be 0: a 201 for every client'),
    line('  rows beyond one per key', orders.strayRows, 'must be 0: rows in orders against the keys'),
    line('  replays differing', orders.replayMismatches, 'must be 0: one 201, identical on every replay'),
    line('  paidAmount off', orders.paidMismatches, `must be 0: paidAmount = ${charges} = its rows`),
    line(
      '  charges applied twice',
      orders.appliedTwice,
      'must be 0: order_payments rows against the charges',
    ),
    line('  charges not applied', orders.notApplied, 'must be 0: every 201 Charge has its row'),
    line('  paid past the amount', orders.overpaid, 'must be 0: paidAmount and provider charges <= amount'),
  ];
}

function paymentsLines({ payments, planned, duplicatesByPath }: ChaosReport): string[] {
  const duplicatesNote = duplicatesByPath
    ? `provider dedup off: lost provider response ${duplicatesByPath.lostResponse}, crash ${duplicatesByPath.crash}`
    : 'must be 0';
  return [
    'payments',
    line('  charges', payments.charges, `provider ledger, for ${planned.payments} payments`),
    line(
      '  refused past the balance',
      payments.refused,
      `422 payment_exceeds_balance, never charged (${planned.overpaying} orders asked more than owed)`,
    ),
    line('  duplicates', payments.duplicates, duplicatesNote),
    line('  lost', payments.lost, 'must be 0'),
    line(
      '  replays differing',
      payments.replayMismatches,
      'must be 0: one 201 Charge, identical on every replay',
    ),
    line('  stray charges', payments.strayCharges, 'must be 0'),
  ];
}

function invoicesLines({ invoices }: ChaosReport): string[] {
  return [
    'invoices',
    line('  emails', invoices.emails, `mail ledger, for ${invoices.requested} requests answered 202`),
    line('  lost', invoices.lost, 'must be 0: one email to the address asked for'),
    line('  sent twice', invoices.duplicates, 'must be 0: one email per order and version'),
  ];
}
