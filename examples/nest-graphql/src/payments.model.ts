import { Field, ID, InputType, Int, ObjectType } from '@nestjs/graphql';

@ObjectType({ description: 'A charge the provider made.' })
export class Charge {
  @Field(() => ID)
  id!: string;

  @Field(() => Int, { description: 'In minor units (cents).' })
  amount!: number;

  @Field()
  currency!: string;
}

@ObjectType({ description: 'A refund the provider made.' })
export class Refund {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  chargeId!: string;

  @Field(() => Int)
  amount!: number;
}

@InputType()
export class CreateChargeInput {
  @Field(() => ID, {
    description: 'Chosen by the client, once per charge it means, and sent again with every retry of it.',
  })
  requestId!: string;

  @Field(() => Int)
  amount!: number;

  @Field()
  currency!: string;
}
