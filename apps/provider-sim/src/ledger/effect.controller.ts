import { Body, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { headerLinesOf, nodeRequestOf, type HttpReply, type HttpRequest } from '@retry-safe/app-shell/http';
import { ChainHeader } from '@retry-safe/contracts/http';
import type { EffectEndpoint } from './simulated-effect.js';

/**
 * The routes of one simulated endpoint, under the subclass's `@Controller(path)`: `POST` performs the effect,
 * `GET` shows the ledger, `DELETE` resets it (the last two for scenarios only).
 * @typeParam A - the answer. @typeParam L - the ledger view, `{calls, <effects>}`.
 */
export abstract class EffectController<A, L> {
  /** @param effect - the endpoint's effect and ledger, one per controller (the simulator keeps them in memory). */
  protected constructor(private readonly effect: EffectEndpoint<A, L>) {}

  /** 201 with the answer; a duplicate key answers 201 with the original answer and `Idempotent-Replayed: true`. */
  @Post()
  @HttpCode(201)
  async create(
    @Req() req: HttpRequest,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: HttpReply,
  ): Promise<A> {
    const { answer, replayed } = await this.effect.perform(
      headerLinesOf(nodeRequestOf(req), ChainHeader.IdempotencyKey),
      body,
    );
    if (replayed) res.header(ChainHeader.IdempotentReplayed, 'true');
    return answer;
  }

  /** `{calls, <effects>}`: what scenarios count. */
  @Get()
  list(): L {
    return this.effect.ledgerView();
  }

  /** Forgets every effect and call (between scenarios). */
  @Delete()
  @HttpCode(204)
  reset(): void {
    this.effect.reset();
  }
}
