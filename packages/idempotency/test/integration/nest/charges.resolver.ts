import { Injectable } from '@nestjs/common';
import { Args, Field, InputType, Int, Mutation, ObjectType, Query, Resolver } from '@nestjs/graphql';
import { Idempotent, type IdempotentGraphqlCall } from '../../../src/nest/index.js';

/** What the resolvers did: the effects each test counts. One per app. */
@Injectable()
export class GraphqlEffects {
  charges = 0;
  /** Holds every mutation after its effect, until resolved. */
  hold: Promise<void> | undefined;
}

@InputType()
export class ChargeInput {
  @Field(() => String, { nullable: true })
  requestId?: string;

  @Field(() => Int)
  amount!: number;
}

@ObjectType()
export class Charge {
  @Field(() => String)
  id!: string;

  @Field(() => Int)
  amount!: number;

  /** Which effect made it: a second run would answer another number. */
  @Field(() => Int)
  effect!: number;
}

// On the class too (its mutations, not its query): the interceptor runs once per field, whatever the levels.
@Resolver(() => Charge)
@Idempotent({ scope: false })
export class ChargesResolver {
  constructor(private readonly effects: GraphqlEffects) {}

  @Query(() => Int)
  charges(): number {
    return this.effects.charges;
  }

  /** Keyed by an argument: `input.requestId`. */
  @Mutation(() => Charge)
  @Idempotent<IdempotentGraphqlCall<{ input: ChargeInput }>>({
    operation: 'graphql.charge',
    keyFrom: { arg: 'input.requestId' },
    inFlight: 'raise',
  })
  async charge(@Args('input', { type: () => ChargeInput }) input: ChargeInput): Promise<Charge> {
    return this.run(input.amount);
  }

  /** Keyed by the HTTP request's `Idempotency-Key` header (the default). */
  @Mutation(() => Charge)
  @Idempotent({ operation: 'graphql.refund', inFlight: 'raise' })
  async refund(@Args('amount', { type: () => Int }) amount: number): Promise<Charge> {
    return this.run(-amount);
  }

  private async run(amount: number): Promise<Charge> {
    this.effects.charges += 1;
    const effect = this.effects.charges;
    await this.effects.hold;
    return { id: `ch_${effect}`, amount, effect };
  }
}
