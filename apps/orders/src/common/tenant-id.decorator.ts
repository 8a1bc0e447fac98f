import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ValidationFailedError, headerLinesOf, nodeRequestFrom } from '@retry-safe/app-shell/http';
import { ChainHeader } from '@retry-safe/contracts/http';
import { z } from 'zod';

const TenantIdSchema = z.uuid();

/** The tenant the gateway authenticated, from `x-tenant-id` (a UUID); 400 `validation_failed` otherwise. */
export const TenantId = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const values = headerLinesOf(nodeRequestFrom(context), ChainHeader.Tenant);
  const parsed = values?.length === 1 ? TenantIdSchema.safeParse(values[0]) : undefined;
  if (parsed?.success !== true)
    throw new ValidationFailedError([`${ChainHeader.Tenant}: must be one tenant UUID`]);
  return parsed.data.toLowerCase();
});
