import { Injectable } from '@nestjs/common';
import type { PaymentReply } from './messages.js';

/**
 * Stands in for a payment provider: every call is a real effect, counted, so `calls` is what a duplicate message
 * must not increase.
 */
@Injectable()
export class PaymentProvider {
  readonly calls = { charge: 0, refund: 0 };

  async charge(amount: number, _currency: string): Promise<PaymentReply> {
    this.calls.charge += 1;
    return { id: `ch_${this.calls.charge}`, kind: 'charge', amount };
  }

  async refund(_charge: string, amount: number): Promise<PaymentReply> {
    this.calls.refund += 1;
    return { id: `re_${this.calls.refund}`, kind: 'refund', amount: -amount };
  }
}
