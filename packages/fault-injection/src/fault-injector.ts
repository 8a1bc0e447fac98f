import { setTimeout as sleep } from 'node:timers/promises';
import { FaultInjectedError, FaultRulesInvalidError } from './fault-injection.errors.js';
import { faultRuleSetSchema, FaultPhase, type FaultRule } from './fault-rules.schema.js';
import { methodMatches, pathMatches } from './path-matcher.js';

/** Method under which non-HTTP fault points are named, e.g. `JOB invoices/after-send`. */
export const FAULT_POINT_METHOD = 'JOB';

/** Request headers as node:http gives them (names in lower case). */
export type FaultRequestHeaders = Record<string, string | readonly string[] | undefined>;

/** A rule with how many times it fired. */
export type FaultRuleState = FaultRule & { fired: number };

/** What `GET /__faults` answers. */
export interface FaultSnapshot {
  rules: FaultRuleState[];
  /** Requests that reached the service, keyed by `METHOD /route/:template`. */
  requests: Record<string, number>;
}

/** Options of {@link FaultInjector}. */
export interface FaultInjectorOptions {
  /**
   * Source of randomness for `probability`, a number in [0, 1).
   * @default Math.random
   */
  random?: () => number;
}

/** Options of {@link FaultInjector.injectAt}. */
export interface FaultPointOptions {
  /**
   * Method the rules must name for this point.
   * @default 'JOB'
   */
  method?: string;
  /**
   * Phase the rules must name for this point.
   * @default 'after-handler'
   */
  at?: FaultPhase;
  /** Values a rule's `match` can test (e.g. `{ 'job-id': '42' }`). */
  headers?: FaultRequestHeaders;
}

/**
 * The framework-free core: a rule set, its matching, and the counters. HTTP apps use it through
 * `FaultInjectionModule`; other apps (a queue worker) call {@link FaultInjector.injectAt} at named fault points and
 * expose the same admin API with `createFaultAdminServer`.
 */
export class FaultInjector {
  private rules: FaultRuleState[] = [];
  private readonly requests = new Map<string, number>();
  private readonly random: () => number;

  constructor(options: FaultInjectorOptions = {}) {
    this.random = options.random ?? Math.random;
  }

  /**
   * Validates `ruleSet` (`{ rules: [...] }`) and replaces the rules (their `fired` counters restart at 0; request
   * counters are kept). Throws {@link FaultRulesInvalidError} and changes nothing when it is invalid.
   */
  replaceRules(ruleSet: unknown): FaultRuleState[] {
    const parsed = faultRuleSetSchema.safeParse(ruleSet);
    if (!parsed.success) {
      throw new FaultRulesInvalidError(
        parsed.error.issues.map((issue) => ({
          path: issue.path.map(String).join('.'),
          message: issue.message,
        })),
        { cause: parsed.error },
      );
    }
    this.rules = parsed.data.rules.map((rule) => ({ ...rule, fired: 0 }));
    return this.snapshot().rules;
  }

  /** Removes every rule and resets every counter. */
  clear(): void {
    this.rules = [];
    this.requests.clear();
  }

  /**
   * The first rule that matches and still has `times` left, after its `probability` roll; counts it as fired.
   * Returns `undefined` when no fault applies.
   */
  decide(
    method: string,
    path: string,
    at: FaultPhase,
    headers: FaultRequestHeaders = {},
  ): FaultRule | undefined {
    for (const state of this.rules) {
      if (
        state.at !== at ||
        !methodMatches(state.method, method) ||
        !pathMatches(state.path, path) ||
        (state.times !== undefined && state.fired >= state.times) ||
        !headerMatches(state, headers)
      ) {
        continue;
      }
      if (state.probability !== undefined && !(this.random() < state.probability)) {
        continue;
      }
      state.fired += 1;
      const { fired: _fired, ...rule } = state;
      return rule as FaultRule;
    }
    return undefined;
  }

  /** Counts one request that reached the service, by method and route template (`POST /v1/orders/:orderId`). */
  countRequest(method: string, route: string): void {
    const key = `${method.toUpperCase()} ${route}`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
  }

  /** How many requests {@link FaultInjector.countRequest} counted for this method and route. */
  requestCount(method: string, route: string): number {
    return this.requests.get(`${method.toUpperCase()} ${route}`) ?? 0;
  }

  /** Rules with their `fired` counts, and the request counters (copies). */
  snapshot(): FaultSnapshot {
    return {
      rules: this.rules.map((rule) => ({ ...rule })),
      requests: Object.fromEntries(this.requests),
    };
  }

  /**
   * A named fault point of a non-HTTP app (`await faults.injectAt('invoices/after-send')`): applies the first rule
   * for `JOB invoices/after-send` (at `after-handler` unless told otherwise). `delay` waits here; `drop` and
   * `status` throw {@link FaultInjectedError}, which the app treats as a crash or failure at that point.
   */
  async injectAt(point: string, options: FaultPointOptions = {}): Promise<void> {
    const rule = this.decide(
      options.method ?? FAULT_POINT_METHOD,
      point,
      options.at ?? FaultPhase.AfterHandler,
      options.headers,
    );
    if (rule === undefined) {
      return;
    }
    if (rule.action === 'delay') {
      await sleep(rule.ms);
      return;
    }
    throw new FaultInjectedError(point, rule);
  }
}

function headerMatches(rule: FaultRule, headers: FaultRequestHeaders): boolean {
  if (rule.match === undefined) {
    return true;
  }
  const value = headers[rule.match.header];
  const values = value === undefined ? [] : typeof value === 'string' ? [value] : value;
  return values.includes(rule.match.value);
}
