import type { FaultRule } from './fault-rules.schema.js';

/** Stable codes of this package's errors; check errors by `code` across package boundaries. */
export const FaultInjectionErrorCode = {
  /** A rule set failed validation; nothing changed. */
  RulesInvalid: 'FAULT_RULES_INVALID',
  /** A `drop` or `status` rule fired at a non-HTTP fault point (see `FaultInjector.injectAt`). */
  Injected: 'FAULT_INJECTED',
} as const;
export type FaultInjectionErrorCode = (typeof FaultInjectionErrorCode)[keyof typeof FaultInjectionErrorCode];

/** Base class of this package's errors. */
export class FaultInjectionError extends Error {
  readonly code: FaultInjectionErrorCode;

  constructor(code: FaultInjectionErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** One validation problem of a rule set: `path` like `rules.0.ms`. */
export interface FaultRuleIssue {
  path: string;
  message: string;
}

/** `FAULT_RULES_INVALID`: the rule set was rejected as a whole. */
export class FaultRulesInvalidError extends FaultInjectionError {
  constructor(
    readonly issues: readonly FaultRuleIssue[],
    options?: { cause?: unknown },
  ) {
    super(
      FaultInjectionErrorCode.RulesInvalid,
      `invalid fault rules: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`,
      options,
    );
  }
}

/** `FAULT_INJECTED`: a rule fired at a named fault point; the caller acts as if the step failed there. */
export class FaultInjectedError extends FaultInjectionError {
  constructor(
    readonly point: string,
    readonly rule: FaultRule,
  ) {
    super(
      FaultInjectionErrorCode.Injected,
      `fault injected at ${rule.method} ${point} (${rule.at}): ${rule.action === 'status' ? `${rule.status} ${rule.code}` : rule.action}`,
    );
  }
}
