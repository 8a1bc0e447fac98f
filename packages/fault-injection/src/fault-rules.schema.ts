import { z } from 'zod';

/** When a rule fires: before the handler runs, or after it finished (effects saved) but before any byte is sent. */
export const FaultPhase = {
  BeforeHandler: 'before-handler',
  AfterHandler: 'after-handler',
} as const;
export type FaultPhase = (typeof FaultPhase)[keyof typeof FaultPhase];

/** What a rule does: destroy the connection, hold the request or response, or answer a problem instead. */
export const FaultActionType = {
  Drop: 'drop',
  Delay: 'delay',
  Status: 'status',
} as const;
export type FaultActionType = (typeof FaultActionType)[keyof typeof FaultActionType];

const ruleBase = {
  /** HTTP method (any case), `*` for any, or a made-up verb for non-HTTP fault points (`JOB`). */
  method: z
    .string()
    .regex(/^(?:[A-Za-z]{1,16}|\*)$/, 'a method name (letters) or *')
    .transform((method) => method.toUpperCase()),
  /** Request path; `*` or `:name` stands for exactly one segment. Matched against the raw path, not the query. */
  path: z.string().min(1).max(2048).regex(/^\S+$/, 'a path without spaces'),
  at: z.enum([FaultPhase.BeforeHandler, FaultPhase.AfterHandler]),
  /** How many times the rule fires; unlimited when absent. */
  times: z.int().min(1).optional(),
  /** Chance (0..1) that a matching request is hit; always when absent. */
  probability: z.number().min(0).max(1).optional(),
  /** Only requests whose header `header` equals `value`. */
  match: z
    .strictObject({
      header: z
        .string()
        .min(1)
        .transform((name) => name.toLowerCase()),
      value: z.string(),
    })
    .optional(),
};

const faultRuleSchema = z.discriminatedUnion('action', [
  z.strictObject({ ...ruleBase, action: z.literal(FaultActionType.Drop) }),
  z.strictObject({ ...ruleBase, action: z.literal(FaultActionType.Delay), ms: z.int().min(0).max(600_000) }),
  z.strictObject({
    ...ruleBase,
    action: z.literal(FaultActionType.Status),
    status: z.int().min(400).max(599),
    code: z.string().min(1).max(100),
    detail: z.string().max(2000).optional(),
    /** Seconds, sent as `Retry-After`. */
    retryAfter: z.int().min(0).optional(),
  }),
]);

/** The body of `PUT /__faults`. */
export const faultRuleSetSchema = z.strictObject({ rules: z.array(faultRuleSchema).max(200) });

/** A validated rule (method upper-cased, header name lower-cased). */
export type FaultRule = z.output<typeof faultRuleSchema>;
/** A rule as written in `PUT /__faults`. */
export type FaultRuleInput = z.input<typeof faultRuleSchema>;
/** The body of `PUT /__faults`. */
export type FaultRuleSetInput = z.input<typeof faultRuleSetSchema>;
