/**
 * The console's own API, as the page reads it: types and two `as const` state objects, nothing of Node's, so the
 * page (bundled for the browser) and the server share one definition of what crosses the wire.
 */

/** Where the console's stack is. */
export const StackState = { Starting: 'starting', Up: 'up', Failed: 'failed' } as const;
/** One of {@link StackState}'s values. */
export type StackState = (typeof StackState)[keyof typeof StackState];

/** `GET /api/status`. */
export interface StatusView {
  readonly stack: StackState;
  /** Since the stack began to start. */
  readonly elapsedMs: number;
  /** What starting it said, line by line. */
  readonly log: readonly string[];
  readonly error?: string;
}

/** A design of a scenario, as listed. */
export interface DesignView {
  readonly design: string;
  /** The cells after the design. */
  readonly expected: readonly string[];
}

/** `GET /api/scenarios`: one per scenario. */
export interface ScenarioView {
  readonly name: string;
  readonly title: string;
  readonly lesson: string;
  readonly columns: readonly string[];
  readonly rows: readonly DesignView[];
}

/** Where a run, or one of its rows, is. */
export const RunState = { Waiting: 'waiting', Running: 'running', Done: 'done', Failed: 'failed' } as const;
/** One of {@link RunState}'s values. */
export type RunState = (typeof RunState)[keyof typeof RunState];

/** A row of a run: its design, its expected and measured cells, and the diagram of what happened. */
export interface RowView {
  readonly design: string;
  readonly expected: readonly string[];
  readonly state: RunState;
  readonly measured?: readonly string[];
  readonly matches?: boolean;
  /** Why it could not run here. */
  readonly skipped?: string;
  /** Mermaid source of the sequence diagram, growing while the row runs. */
  readonly diagram?: string;
  readonly durationMs?: number;
  readonly error?: string;
}

/** A progress line of a run. */
export interface StepView {
  /** Ms since the run started. */
  readonly atMs: number;
  readonly text: string;
}

/** `GET /api/runs/{id}`. */
export interface RunView {
  readonly id: string;
  /** The scenario's name, or `explorer`. */
  readonly scenario: string;
  readonly state: RunState;
  readonly elapsedMs: number;
  readonly rows: readonly RowView[];
  readonly steps: readonly StepView[];
  readonly error?: string;
  /** The trace of an explorer payment, once it ran. */
  readonly trace?: PaymentTrace;
}

/** `POST /api/runs`: a whole scenario, or one row of it. */
export interface RunRequest {
  readonly scenario: string;
  /** Index of the row; absent: every row. */
  readonly row?: number;
}

/** `POST /api/payments`: one payment of the explorer. */
export interface PaymentRequestBody {
  readonly amount: number;
  readonly key: string;
  /** Payments' answer to orders is lost once (after its handler ran). */
  readonly loseAfterPayments: boolean;
  /** Orders' answer to the gateway is lost once (after its handler ran). */
  readonly loseAfterOrders: boolean;
}

/** One request a service's journal lists. */
export interface AttemptView {
  readonly service: string;
  readonly route: string;
  readonly status: number | 'aborted';
  readonly replayed: boolean;
  /** Ms after the payment was sent. */
  readonly atMs: number;
  readonly durationMs: number;
}

/** What the idempotency record of one attempt was before it and after it (from the service's span). */
export interface RecordView {
  readonly service: string;
  readonly store: 'Redis' | 'PostgreSQL';
  readonly outcome: string;
  readonly before: string;
  readonly after: string;
}

/** The order as the gateway answers `GET /v1/orders/{id}` (its row in PostgreSQL). */
export interface OrderView {
  readonly status: string;
  readonly amount: number;
  readonly paidAmount: number;
  readonly payments: number;
}

/** The trace of one explorer payment. */
export interface PaymentTrace {
  readonly key: string;
  readonly orderId: string;
  /** The client's answer. */
  readonly answer: { readonly status: number; readonly code?: string; readonly replayed: boolean };
  readonly attempts: readonly AttemptView[];
  readonly records: readonly RecordView[];
  readonly orderBefore: OrderView;
  readonly orderAfter: OrderView;
  /** The provider's charges under this payment's key. */
  readonly charges: ReadonlyArray<{
    readonly id: string;
    readonly amount: number;
    readonly currency: string;
  }>;
}
