import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ChainHeader } from '@retry-safe/contracts/http';
import type { Request, Response } from 'express';
import type { EmailLedgerRow, EmailReceipt } from './email.schema.js';
import { EmailsService } from './emails.service.js';

/** The mail provider's API (`/v1/emails`) plus the test-only ledger view and reset. */
@Controller('v1/emails')
export class EmailsController {
  constructor(private readonly emails: EmailsService) {}

  /** 201 `{emailId}`; a duplicate key answers 201 with the original id and `Idempotent-Replayed: true`. */
  @Post()
  @HttpCode(201)
  async send(
    @Req() req: Request,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<EmailReceipt> {
    const { receipt, replayed } = await this.emails.send(
      req.headersDistinct[ChainHeader.IdempotencyKey],
      body,
    );
    if (replayed) res.setHeader(ChainHeader.IdempotentReplayed, 'true');
    return receipt;
  }

  /** `{calls, emails}`: what scenarios count. */
  @Get()
  list(): { calls: number; emails: EmailLedgerRow[] } {
    return this.emails.list();
  }

  /** Forgets every email and call (between scenarios). */
  @Delete()
  @HttpCode(204)
  reset(): void {
    this.emails.reset();
  }
}
