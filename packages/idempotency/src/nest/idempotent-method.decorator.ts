import { SetMetadata } from '@nestjs/common';
import type { IdempotentMethodOptions } from './interfaces/idempotent-method-options.interface.js';

/** Metadata key of the {@link IdempotentMethodOptions} that `@IdempotentMethod()` sets on a provider's method. */
export const IDEMPOTENT_METHOD = Symbol('IDEMPOTENT_METHOD');
/** Metadata key of the argument index `@IdempotencyContextArg()` marks. */
export const IDEMPOTENCY_CONTEXT_ARG = Symbol('IDEMPOTENCY_CONTEXT_ARG');

/**
 * Makes a method of any provider run once per operation and key, whoever calls it: a queue consumer, a use case, a
 * scheduled job. When the module starts, the method is replaced on the provider's instance by one that goes
 * through the coordinator; its callers and its signature do not change, and a repeat resolves to the stored
 * result. `outcomeOf(promise)` tells a caller whether that call executed, replayed or ran unprotected.
 *
 * @example
 * @IdempotentMethod<[InvoiceJob], Receipt>({
 *   operation: 'invoice.send',
 *   key: (job) => job.invoiceId,
 *   settingsProvider: InvoiceSettings, // asked on every call: { enabled, inFlight, leaseMs, ... }
 * })
 * async send(job: InvoiceJob, @IdempotencyContextArg() context?: IdempotencyContext): Promise<Receipt> { ... }
 */
export function IdempotentMethod<Args extends unknown[], T>(
  options: IdempotentMethodOptions<Args, T>,
): MethodDecorator {
  return SetMetadata(IDEMPOTENT_METHOD, options);
}

/**
 * Marks the parameter that receives the call's `IdempotencyContext` (operation, key, fencing token, the signal that
 * aborts when the lease is lost, `protected`). Callers leave it out; declare it optional.
 */
export function IdempotencyContextArg(): ParameterDecorator {
  return (target, method, index) => {
    if (method !== undefined) Reflect.defineMetadata(IDEMPOTENCY_CONTEXT_ARG, index, target, method);
  };
}
