import { Args, Field, InputType, Int, Mutation, ObjectType, Resolver } from '@nestjs/graphql';
import { Idempotent, type IdempotentGraphqlCall } from '@retry-safe/idempotency/nest';

@InputType()
export class CreateChargeInput {
  @Field(() => String)
  requestId!: string;

  @Field(() => Int)
  amount!: number;
}

@ObjectType()
export class Charge {
  @Field(() => String)
  id!: string;

  @Field(() => Int)
  amount!: number;
}

@Resolver(() => Charge)
export class ChargesResolver {
  private charged = 0;

  // A mutation retried with the same `input.requestId` returns the same Charge; the key with another input is a
  // GraphQL error with `extensions.code: 'idempotency_key_reused'`. Without `keyFrom`, the key is the HTTP
  // request's `Idempotency-Key` header.
  @Mutation(() => Charge)
  @Idempotent<IdempotentGraphqlCall<{ input: CreateChargeInput }>>({
    operation: 'charges.create',
    keyFrom: { arg: 'input.requestId' },
  })
  createCharge(@Args('input') input: CreateChargeInput): Charge {
    this.charged += 1;
    return { id: `ch_${this.charged}`, amount: input.amount };
  }
}
