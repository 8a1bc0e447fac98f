/** What a chaos run is asked to do and what it found (chaos-table.ts prints it). */

/** Options of `runChaos`. */
export interface ChaosOptions {
  /** Orders to create (each paid in one to three payments; some ask for an invoice). @default 200 */
  orders?: number;
  /** provider-sim deduplicates by the provider key (`PROVIDER_DEDUP`). @default true */
  providerDedup?: boolean;
  /**
   * Seed of everything the run decides itself: amounts, how many payments each order takes, which requests are
   * sent twice, which orders ask for an invoice, client backoff, when and which process is killed. The services'
   * fault rules roll their own dice (`Math.random`).
   * @default a random seed (printed in the report)
   */
  seed?: number;
  /**
   * Chance that a hop (gateway, orders, payments) drops a connection, before or after its handler, on every route
   * of the run (order creation, payments, invoice requests). @default 0.2
   */
  dropProbability?: number;
  /** Chance that provider-sim loses its response after charging. @default 0.1 */
  lostResponseProbability?: number;
  /** Share of order creations and payments sent by two clients at once. @default 0.2 */
  sentTwiceShare?: number;
  /** Share of orders that ask for an invoice once their payments are answered. @default 0.5 */
  invoiceShare?: number;
  /**
   * Share of orders that get one payment more, of their whole amount, sent at once with the others (its own key):
   * together they ask more than is owed, so some are refused, and none may take the order past its amount.
   * @default 0.25
   */
  overpayShare?: number;
  /** SIGKILLs of a payments process (of two; each started again at once). @default 3 */
  kills?: number;
  /** SIGKILLs of an orders process (of two; one at a time, each started again at once). @default 3 */
  ordersKills?: number;
  /** Orders in flight at once. @default 16 */
  concurrency?: number;
  /** `IDEMPOTENCY_LEASE_MS` of payments: how long a killed process blocks its key. @default 2000 */
  leaseMs?: number;
  /** `PROVIDER_LATENCY_MS`: keeps calls inside the action long enough for a kill to land there. @default 40 */
  providerLatencyMs?: number;
  /** How long a client retries one request before it counts as lost. @default 60000 */
  clientTimeoutMs?: number;
  /** How long the invoices may take to be published and sent after the traffic. @default 30000 */
  drainTimeoutMs?: number;
  /** Print the services' output. @default false */
  logs?: boolean;
  /** Progress lines. @default none */
  log?: (line: string) => void;
  /** Stops the run early (the stack is still closed). */
  signal?: AbortSignal;
}

/** Per service: the gateway, orders and payments hops and provider-sim. */
export interface PerService {
  gateway: number;
  orders: number;
  payments: number;
  provider: number;
}

/** What the run planned. */
export interface ChaosPlanned {
  readonly orders: number;
  readonly payments: number;
  /** Orders paid in two or three payments. */
  readonly multiPaymentOrders: number;
  /** Orders whose payments add up to the whole amount (they must end `paid`). */
  readonly paidInFull: number;
  /** Orders with a payment more than is owed (see {@link ChaosOptions.overpayShare}). */
  readonly overpaying: number;
  readonly invoices: number;
  /** Order creations and payments sent by two clients at once. */
  readonly sentTwice: number;
}

/** The checks of the charges: the provider's ledger against the payments and their answers. */
export interface PaymentsVerdict {
  /** Charges in the provider's ledger. */
  charges: number;
  /** Provider charges beyond the first, over all payments. */
  duplicates: number;
  /** Payments without a 201 for every client, without a provider charge, or whose Charge names no charge of theirs. */
  lost: number;
  /** Payments whose 201s (every client's and the final replay) are not the same bytes. */
  replayMismatches: number;
  /** Provider charges under a key no payment used. */
  strayCharges: number;
  /** Payments refused for good as more than the order owes (`422 payment_exceeds_balance`), never charged. */
  refused: number;
}

/** The checks of the orders: their rows and `GET /v1/orders/{id}` against the charges. */
export interface OrdersVerdict {
  /** Orders without a 201 for every client. */
  lost: number;
  /** Order rows beyond one per key (the database against the created orders). */
  strayRows: number;
  /** Orders whose 201s (every client's and the final replay) are not the same bytes. */
  replayMismatches: number;
  /** Orders whose `paidAmount` is not the sum of their provider charges (or of their applied rows), or whose status is not what it says. */
  paidMismatches: number;
  /** `order_payments` rows beyond one per charged payment: a Charge or a provider charge applied twice. */
  appliedTwice: number;
  /** Payments answered 201 whose Charge has no `order_payments` row. */
  notApplied: number;
  /** Orders paid (`paidAmount`) or charged (their provider charges) past their amount. */
  overpaid: number;
}

/** The checks of the invoices: the mail provider's ledger against the requests. */
export interface InvoicesVerdict {
  /** Invoice requests answered 202. */
  requested: number;
  /** Emails in the mail ledger. */
  emails: number;
  /** Requests without a 202, or without an email to their address. */
  lost: number;
  /** Emails beyond one per order and version, and emails under a key no request used. */
  duplicates: number;
}

/** What `runChaos` found. */
export interface ChaosReport {
  readonly options: Required<Omit<ChaosOptions, 'log' | 'signal' | 'logs'>>;
  readonly planned: ChaosPlanned;
  /** Requests the clients sent (first attempts and retries, both clients of a request sent twice). */
  readonly clientAttempts: number;
  /** Requests on the run's routes that reached each service (a killed process's are read just before the kill). */
  readonly calls: PerService;
  /** Dropped connections per service; for the provider, responses lost after charging. */
  readonly drops: PerService;
  readonly kills: { readonly payments: number; readonly orders: number };
  readonly payments: PaymentsVerdict;
  /**
   * With provider dedup off, where the duplicate charges came from: every response the provider lost after
   * charging is one (the retry charges again); the rest are charges made for a payments process that was killed
   * inside the provider call.
   */
  readonly duplicatesByPath: { lostResponse: number; crash: number } | undefined;
  readonly orders: OrdersVerdict;
  readonly invoices: InvoicesVerdict;
  /** The first problems found, for the log. */
  readonly problems: readonly string[];
  readonly durationMs: number;
  /**
   * Nothing lost, no stray row or charge, every replay identical, every `paidAmount` the sum of its charges, no
   * charge applied twice, every invoice sent once; duplicate charges 0 when provider dedup is on.
   */
  readonly ok: boolean;
}

/** {@link ChaosOptions} with every default applied (the report repeats them, seed included). */
export type ResolvedChaosOptions = ChaosReport['options'];

/** The options with their documented defaults; a random seed when none is given. */
export function resolveChaosOptions(options: ChaosOptions): ResolvedChaosOptions {
  return {
    orders: options.orders ?? 200,
    providerDedup: options.providerDedup ?? true,
    seed: options.seed ?? Math.floor(Math.random() * 2 ** 31),
    dropProbability: options.dropProbability ?? 0.2,
    lostResponseProbability: options.lostResponseProbability ?? 0.1,
    sentTwiceShare: options.sentTwiceShare ?? 0.2,
    invoiceShare: options.invoiceShare ?? 0.5,
    overpayShare: options.overpayShare ?? 0.25,
    kills: options.kills ?? 3,
    ordersKills: options.ordersKills ?? 3,
    concurrency: options.concurrency ?? 16,
    leaseMs: options.leaseMs ?? 2_000,
    providerLatencyMs: options.providerLatencyMs ?? 40,
    clientTimeoutMs: options.clientTimeoutMs ?? 60_000,
    drainTimeoutMs: options.drainTimeoutMs ?? 30_000,
  };
}

/** Whether the verdicts pass (see {@link ChaosReport.ok}). */
export function chaosPassed(
  options: ResolvedChaosOptions,
  verdicts: Pick<ChaosReport, 'payments' | 'orders' | 'invoices'>,
): boolean {
  const { payments, orders, invoices } = verdicts;
  return (
    (!options.providerDedup || payments.duplicates === 0) &&
    payments.lost === 0 &&
    payments.replayMismatches === 0 &&
    payments.strayCharges === 0 &&
    Object.values(orders).every((count) => count === 0) &&
    invoices.lost === 0 &&
    invoices.duplicates === 0
  );
}
