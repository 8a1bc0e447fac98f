import { Injectable } from '@nestjs/common';

export interface Order {
  id: string;
  sku: string;
  quantity: number;
}

/** Places orders; `placed` counts them: what a retry must not increase. */
@Injectable()
export class OrdersService {
  placed = 0;

  async place(sku: string, quantity: number): Promise<Order> {
    this.placed += 1;
    return { id: `ord_${this.placed}`, sku, quantity };
  }
}
