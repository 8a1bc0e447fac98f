import { Inject, Injectable } from '@nestjs/common';
import { type Counter } from '@retry-safe/app-shell/telemetry';
import { RuntimeSettings } from '@retry-safe/app-shell/admin';
import type { z } from 'zod';
import { simulateLatency } from '../common/latency.js';
import { parseBody, parseIdempotencyKey } from '../common/request-parsing.js';
import { APP_CONFIG, DedupMode, type AppConfig } from '../config/app-config.js';
import type { ProviderSettings } from '../config/provider-settings.js';
import { EffectOutcome } from '../metrics/metrics.service.js';
import { IdempotentLedger, type LedgerEntry } from './idempotent-ledger.js';

/** What the simulator's endpoints share: how long an effect takes, and whether keys deduplicate right now. */
@Injectable()
export class Simulation {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    // `PROVIDER_DEDUP` in force: start-up, or a scenario's `PUT /__config`.
    private readonly settings: RuntimeSettings<ProviderSettings>,
  ) {}

  /** `PROVIDER_LATENCY_MS`. */
  get latencyMs(): number {
    return this.config.latencyMs;
  }

  /** Asked on every call: a scenario may switch it on a running simulator. */
  dedup(): boolean {
    return this.settings.current.dedup === DedupMode.On;
  }
}

/** One kind of effect the simulator performs (a charge, an email), on top of its idempotent ledger. */
export interface EffectDefinition<P, A, R, K extends string> {
  /** What the ledger view calls the effects, e.g. `charges` gives `{calls, charges}`. */
  readonly plural: K;
  /** Prefix of the ids, e.g. `ch_`. */
  readonly idPrefix: string;
  /** The request body's schema. */
  readonly schema: z.ZodType<P>;
  /** What must match for a key to be reused (see {@link IdempotentLedger}). */
  readonly fingerprint: (params: P) => unknown;
  /** The answer to the first call and to every duplicate. */
  readonly answer: (entry: LedgerEntry<P>) => A;
  /** One row of the ledger view (`GET`). */
  readonly row: (entry: LedgerEntry<P>) => R;
}

/** The result of {@link SimulatedEffect.perform}. */
export interface Performed<A> {
  readonly answer: A;
  /** True when the key was seen before: the original answer, nothing new happened. */
  readonly replayed: boolean;
}

/** `GET` of an endpoint: every call received and every effect performed since the last reset. */
export type LedgerView<K extends string, R> = { calls: number } & { [plural in K]: R[] };

/** What an {@link EffectController} serves. @typeParam A - the answer. @typeParam L - the ledger view. */
export interface EffectEndpoint<A, L> {
  perform(idempotencyKeyHeader: string | readonly string[] | undefined, body: unknown): Promise<Performed<A>>;
  ledgerView(): L;
  reset(): void;
}

/**
 * A simulated provider endpoint: performs its effect once per `Idempotency-Key` (unless dedup is off), counts every
 * call by outcome, and shows its ledger to scenarios. One per {@link EffectDefinition}, held by its controller.
 * @typeParam P - the validated request. @typeParam A - the answer. @typeParam R - a ledger row.
 * @typeParam K - the plural of the ledger view.
 */
export class SimulatedEffect<P, A, R, K extends string> implements EffectEndpoint<A, LedgerView<K, R>> {
  private readonly ledger: IdempotentLedger<P>;

  constructor(
    private readonly simulation: Simulation,
    private readonly outcomes: Counter<'outcome'>,
    private readonly definition: EffectDefinition<P, A, R, K>,
  ) {
    this.ledger = new IdempotentLedger<P>({
      idPrefix: definition.idPrefix,
      dedup: () => simulation.dedup(),
      fingerprint: definition.fingerprint,
    });
  }

  /**
   * Performs the effect, or returns the answer already given under this key.
   * @throws the provider's validation and key errors (see `ProviderErrorCode`).
   */
  async perform(
    idempotencyKeyHeader: string | readonly string[] | undefined,
    body: unknown,
  ): Promise<Performed<A>> {
    this.ledger.countCall();
    try {
      const key = parseIdempotencyKey(idempotencyKeyHeader);
      const request = parseBody(this.definition.schema, body);
      // Latency first: the ledger's check-and-insert below must stay one synchronous step.
      await simulateLatency(this.simulation.latencyMs);
      const { entry, replayed } = this.ledger.record(key, request);
      this.outcomes.inc({ outcome: replayed ? EffectOutcome.Replayed : EffectOutcome.Created });
      return { answer: this.definition.answer(entry), replayed };
    } catch (error) {
      this.outcomes.inc({ outcome: EffectOutcome.Rejected });
      throw error;
    }
  }

  /** Every call received and every effect performed since the last reset. */
  ledgerView(): LedgerView<K, R> {
    const { calls, entries } = this.ledger.snapshot();
    return { calls, [this.definition.plural]: entries.map(this.definition.row) } as LedgerView<K, R>;
  }

  /** Forgets every effect and call (between scenarios). */
  reset(): void {
    this.ledger.reset();
  }
}
