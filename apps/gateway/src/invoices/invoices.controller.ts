import { Body, Controller, Param, Post, Res, UseGuards } from '@nestjs/common';
import { JsonContentTypeGuard, relay, type HttpReply } from '@retry-safe/app-shell/http';
import { AuthenticatedCaller, type Caller } from '../auth/caller.decorator.js';
import { OrdersClient } from '../orders/orders.client.js';
import { InvoiceRequestSchema, OrderIdSchema, type InvoiceRequest } from '@retry-safe/contracts';

/**
 * Asks for an invoice email: orders enqueues a job and answers 202 `{deliveryId}`. Calling it twice publishes two
 * deliveries (that is how a producer retry looks); the invoice worker sends one email per order and version.
 */
@Controller('v1/orders')
@UseGuards(JsonContentTypeGuard)
export class InvoicesController {
  constructor(private readonly orders: OrdersClient) {}

  @Post(':orderId/invoices')
  async request(
    @AuthenticatedCaller() caller: Caller,
    @Param('orderId', { schema: OrderIdSchema }) orderId: string,
    @Body({ schema: InvoiceRequestSchema }) invoice: InvoiceRequest,
    @Res({ passthrough: true }) res: HttpReply,
  ): Promise<unknown> {
    const upstream = await this.orders.requestInvoice({ orderId, ...invoice }, caller);
    return relay(res, upstream);
  }
}
