import { Body, Controller, Post, Res } from '@nestjs/common';
import { Idempotent } from '@retry-safe/idempotency/nest';
import type { Response } from 'express';
import { Order, OrdersService } from './orders.service';

class PlaceOrderDto {
  sku: string;
  quantity: number;
}

@Controller('orders')
export class OrdersController {
  constructor(private readonly ordersService: OrdersService) {}

  @Post()
  // One order per Idempotency-Key: a retry gets the stored 201, body and Location, marked Idempotent-Replayed.
  @Idempotent({ operation: 'orders.place', inFlight: 'raise' })
  async place(@Body() dto: PlaceOrderDto, @Res({ passthrough: true }) res: Response): Promise<Order> {
    const order = await this.ordersService.place(dto.sku, dto.quantity);
    res.location(`/orders/${order.id}`);
    return order;
  }
}
