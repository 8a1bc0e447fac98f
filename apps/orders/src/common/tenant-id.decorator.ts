import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { z } from 'zod';
import { ValidationFailedError } from '@retry-safe/app-shell';

/** Header in which the gateway passes the authenticated tenant (internal services trust their caller). */
export const TENANT_HEADER = 'x-tenant-id';

const TenantIdSchema = z.uuid();

/** The tenant the gateway authenticated, from `x-tenant-id` (a UUID); 400 `validation_failed` otherwise. */
export const TenantId = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const values = context.switchToHttp().getRequest<Request>().headersDistinct[TENANT_HEADER];
  const parsed = values?.length === 1 ? TenantIdSchema.safeParse(values[0]) : undefined;
  if (parsed?.success !== true)
    throw new ValidationFailedError([`${TENANT_HEADER}: must be one tenant UUID`]);
  return parsed.data.toLowerCase();
});
