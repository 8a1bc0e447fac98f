import { randomUUID } from 'node:crypto';
import { Body, Controller, Injectable, Post } from '@nestjs/common';
import { Args, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  Idempotent,
  type IdempotentGraphqlCall,
  type IdempotentMessage,
  type IdempotentRequest,
} from '../../../src/nest/index.js';

/** One operation, offered in every context: over HTTP, as a NATS message, as a GraphQL mutation. */
export interface ContractCall {
  readonly key?: string;
  readonly tenant: string;
  readonly amount: number;
}

/** Every context's effects, counted together; `hold` keeps each run open after its effect. */
@Injectable()
export class ContractEffects {
  runs = 0;
  hold: Promise<void> | undefined;

  async run(amount: number): Promise<{ run: number; amount: number }> {
    this.runs += 1;
    const run = this.runs;
    await this.hold;
    return { run, amount };
  }
}

export const CONTRACT_PATTERN = `contract.${randomUUID().slice(0, 8)}`;

@Controller()
export class ContractController {
  constructor(private readonly effects: ContractEffects) {}

  /** The key in the `Idempotency-Key` header, the tenant in `X-Tenant`. */
  @Post('contract')
  @Idempotent<IdempotentRequest>({
    operation: 'contract.http',
    inFlight: 'raise',
    scope: (req) => String(req.headers['x-tenant']),
  })
  call(@Body() body: { amount: number }) {
    return this.effects.run(body.amount);
  }

  @MessagePattern(CONTRACT_PATTERN)
  @Idempotent<IdempotentMessage<ContractCall>>({
    operation: 'contract.rpc',
    inFlight: 'raise',
    keyFrom: { payload: 'key' },
    scope: (message) => message.data.tenant,
  })
  message(@Payload() data: ContractCall) {
    return this.effects.run(data.amount);
  }
}

@Resolver()
export class ContractResolver {
  constructor(private readonly effects: ContractEffects) {}

  @Query(() => Int)
  runs(): number {
    return this.effects.runs;
  }

  @Mutation(() => Int)
  @Idempotent<IdempotentGraphqlCall<ContractCall>>({
    operation: 'contract.graphql',
    inFlight: 'raise',
    keyFrom: { arg: 'key' },
    scope: (call) => call.args.tenant,
  })
  async contract(
    @Args('key', { type: () => String, nullable: true }) _key: string | undefined,
    @Args('tenant', { type: () => String }) _tenant: string,
    @Args('amount', { type: () => Int }) amount: number,
  ): Promise<number> {
    return (await this.effects.run(amount)).run;
  }
}
