import { Body, Controller, HttpCode, HttpStatus, Param, Post, UseGuards } from '@nestjs/common';
import { Chain, type ChainContext, JsonContentTypeGuard } from '@retry-safe/app-shell/http';
import { TenantId } from '../common/tenant-id.decorator.js';
import { InvoiceRequestSchema, OrderIdSchema, type InvoiceRequest } from '@retry-safe/contracts';
import { InvoicesService, type InvoiceReceipt } from './invoices.service.js';

/** Internal: asks for an invoice email; 202 `{deliveryId}` once the delivery is committed to the outbox. */
@Controller('v1/orders')
@UseGuards(JsonContentTypeGuard)
export class InvoicesController {
  constructor(private readonly invoices: InvoicesService) {}

  @Post(':orderId/invoices')
  @HttpCode(HttpStatus.ACCEPTED)
  request(
    @TenantId() tenantId: string,
    @Param('orderId', { schema: OrderIdSchema }) orderId: string,
    @Body({ schema: InvoiceRequestSchema }) invoice: InvoiceRequest,
    @Chain() chain: ChainContext,
  ): Promise<InvoiceReceipt> {
    return this.invoices.publish(tenantId, orderId, invoice.version, invoice.email, chain.requestId);
  }
}
