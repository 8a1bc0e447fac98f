import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { nodeRequestFrom, requestContextOf } from '@retry-safe/app-shell/http';

/** Who is calling: what a downstream call needs to carry. */
export interface Caller {
  /** The authenticated tenant (a UUID). */
  readonly tenantId: string;
  /** The id minted for this request, sent down the chain as `x-request-id`. */
  readonly requestId: string;
}

/** The authenticated {@link Caller}; set by `ApiTokenAuthenticator` on every business route. */
export const AuthenticatedCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Caller => {
    const requestContext = requestContextOf(nodeRequestFrom(context));
    if (requestContext?.tenantId === undefined)
      throw new Error('@AuthenticatedCaller() needs ApiTokenAuthenticator');
    return { tenantId: requestContext.tenantId, requestId: requestContext.requestId };
  },
);
