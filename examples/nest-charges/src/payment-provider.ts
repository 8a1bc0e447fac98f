import { Injectable } from '@nestjs/common';

export interface Charge {
  id: string;
  amount: number;
  currency: string;
}

/** Stands in for a payment provider: every call is a charge, so `count` is what a retry must not increase. */
@Injectable()
export class PaymentProvider {
  count = 0;

  async charge(amount: number, currency: string): Promise<Charge> {
    this.count += 1;
    return { id: `ch_${this.count}`, amount, currency };
  }
}
