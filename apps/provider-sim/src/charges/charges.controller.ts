import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ChainHeader } from '@retry-safe/contracts/http';
import type { Request, Response } from 'express';
import type { Charge, ChargeLedgerRow } from './charge.schema.js';
import { ChargesService } from './charges.service.js';

/** The payment provider's API (`/v1/charges`) plus the test-only ledger view and reset. */
@Controller('v1/charges')
export class ChargesController {
  constructor(private readonly charges: ChargesService) {}

  /** 201 with the charge; a duplicate key answers 201 with the original charge and `Idempotent-Replayed: true`. */
  @Post()
  @HttpCode(201)
  async create(
    @Req() req: Request,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Charge> {
    const { charge, replayed } = await this.charges.charge(
      req.headersDistinct[ChainHeader.IdempotencyKey],
      body,
    );
    if (replayed) res.setHeader(ChainHeader.IdempotentReplayed, 'true');
    return charge;
  }

  /** `{calls, charges}`: what scenarios count. */
  @Get()
  list(): { calls: number; charges: ChargeLedgerRow[] } {
    return this.charges.list();
  }

  /** Forgets every charge and call (between scenarios). */
  @Delete()
  @HttpCode(204)
  reset(): void {
    this.charges.reset();
  }
}
