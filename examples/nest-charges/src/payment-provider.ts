import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';

export interface Charge {
  id: string;
  amount: number;
  currency: string;
}

export interface Refund {
  id: string;
  charge: string;
  amount: number;
  /** The provider's id of the call that made it. */
  providerRequestId: string;
}

export interface Statement {
  id: string;
  /** The export itself, base64: about 1 MiB. */
  data: string;
}

/**
 * Stands in for a payment provider: every call is a real effect, counted by kind, so `calls` is what a retry must
 * not increase.
 */
@Injectable()
export class PaymentProvider {
  readonly calls = { charge: 0, capture: 0, statement: 0, refund: 0, quote: 0 };

  async charge(amount: number, currency: string): Promise<Charge> {
    this.calls.charge += 1;
    return { id: `ch_${this.calls.charge}`, amount, currency };
  }

  async capture(_charge: string): Promise<void> {
    this.calls.capture += 1;
  }

  /** A statement export of about 1 MiB, random: a second export never has the same bytes. */
  async statement(): Promise<Statement> {
    this.calls.statement += 1;
    return { id: `st_${this.calls.statement}`, data: randomBytes(786_432).toString('base64') };
  }

  async refund(charge: string, amount: number): Promise<Refund> {
    this.calls.refund += 1;
    return {
      id: `re_${this.calls.refund}`,
      charge,
      amount,
      providerRequestId: `req_${randomBytes(6).toString('hex')}`,
    };
  }

  /** What a refund would return now: cheap to ask, and stale soon. */
  async quote(charge: string): Promise<{ charge: string; refundable: number; providerRequestId: string }> {
    this.calls.quote += 1;
    return {
      charge,
      refundable: 1000 - this.calls.quote,
      providerRequestId: `req_${randomBytes(6).toString('hex')}`,
    };
  }
}
