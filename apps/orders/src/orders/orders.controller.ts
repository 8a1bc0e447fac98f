import {
  Body,
  Controller,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Post,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import { IdempotencyKey, JsonContentTypeGuard, type HttpReply } from '@retry-safe/app-shell/http';
import {
  OrderCreateSchema,
  OrderIdSchema,
  OrderListQuerySchema,
  type OrderCreate,
  type OrderListQuery,
} from '@retry-safe/contracts';
import { ChainHeader } from '@retry-safe/contracts/http';
import { CoordinateOutcome } from '@retry-safe/idempotency';
import { TenantId } from '../common/tenant-id.decorator.js';
import type { Order, OrderDetails, OrderPage } from './order.js';
import { OrdersService } from './orders.service.js';

/**
 * Internal: the tenant's orders (the gateway authenticates and sends `x-tenant-id`). `POST` creates one per
 * `Idempotency-Key` (201; a replay has the same bytes and `Idempotent-Replayed: true`); `GET` reads and lists.
 */
@Controller('v1/orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Post()
  @UseGuards(JsonContentTypeGuard)
  @HttpCode(HttpStatus.CREATED)
  async create(
    @TenantId() tenantId: string,
    @IdempotencyKey() idempotencyKey: string,
    @Body({ schema: OrderCreateSchema }) order: OrderCreate,
    @Res({ passthrough: true }) res: HttpReply,
  ): Promise<Order> {
    const { value, outcome } = await this.orders.create(tenantId, order, idempotencyKey);
    if (outcome === CoordinateOutcome.Replayed) res.header(ChainHeader.IdempotentReplayed, 'true');
    return value;
  }

  @Get(':orderId')
  get(
    @TenantId() tenantId: string,
    @Param('orderId', { schema: OrderIdSchema }) orderId: string,
  ): Promise<OrderDetails> {
    return this.orders.get(tenantId, orderId);
  }

  @Get()
  list(
    @TenantId() tenantId: string,
    @Query({ schema: OrderListQuerySchema }) query: OrderListQuery,
  ): Promise<OrderPage> {
    return this.orders.list(tenantId, query);
  }
}
