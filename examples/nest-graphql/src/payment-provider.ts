import { Injectable } from '@nestjs/common';
import type { Charge, Refund } from './payments.model.js';

/**
 * Stands in for a payment provider: every call is a real effect, kept, so what it holds is what a retried
 * mutation must not add to.
 */
@Injectable()
export class PaymentProvider {
  readonly charges: Charge[] = [];
  readonly refunds: Refund[] = [];

  async charge(amount: number, currency: string): Promise<Charge> {
    const made = { id: `ch_${this.charges.length + 1}`, amount, currency };
    this.charges.push(made);
    return made;
  }

  async refund(chargeId: string, amount: number): Promise<Refund> {
    const made = { id: `re_${this.refunds.length + 1}`, chargeId, amount };
    this.refunds.push(made);
    return made;
  }
}
