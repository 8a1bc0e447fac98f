import { Args, ID, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { Idempotent, type IdempotentGraphqlCall } from '@retry-safe/idempotency/nest';
import { PaymentProvider } from './payment-provider.js';
import { Charge, CreateChargeInput, Refund } from './payments.model.js';

/**
 * A retried mutation returns the first run's result and makes no second charge or refund. The key reused with
 * other arguments is a GraphQL error with `extensions.code` `idempotency_key_reused` (`status` 422), and a retry
 * while the first still runs one with `request_in_progress` (409) and `extensions.retryAfter` (seconds), at once
 * (`inFlight: 'raise'`), rather than holding the client's HTTP request open until the first ends.
 */
@Resolver()
export class PaymentsResolver {
  constructor(private readonly provider: PaymentProvider) {}

  @Query(() => [Charge], { description: 'The charges made: a retry adds none.' })
  charges(): Charge[] {
    return this.provider.charges;
  }

  @Mutation(() => Charge)
  // The key is part of the input, so the schema requires it and a client cannot forget it. The fingerprint is the
  // field's arguments: the requestId with another amount is a new request under a used key.
  @Idempotent<IdempotentGraphqlCall<{ input: CreateChargeInput }>>({
    operation: 'payment.charge',
    keyFrom: { arg: 'input.requestId' },
    inFlight: 'raise',
  })
  createCharge(@Args('input') input: CreateChargeInput): Promise<Charge> {
    return this.provider.charge(input.amount, input.currency);
  }

  @Mutation(() => Refund)
  // The key in the HTTP request's `Idempotency-Key` header (the default), as for this API's REST routes.
  @Idempotent({ operation: 'payment.refund', inFlight: 'raise' })
  refundCharge(
    @Args('chargeId', { type: () => ID }) chargeId: string,
    @Args('amount', { type: () => Int }) amount: number,
  ): Promise<Refund> {
    return this.provider.refund(chargeId, amount);
  }
}
