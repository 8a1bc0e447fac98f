// `@retry-safe/app-shell/http`: what an app's controllers and error mapping use of the shell. The shared errors and
// the problem filter's options, the request's context and key, the callers' credentials, relaying an answer from the
// next hop. Only what apps import is exported.
export {
  InternalTokenAuthenticator,
  bearerTokenOf,
  internalAuthorization,
  type CallerAuthenticator,
} from '../auth/caller-authentication.js';
export { downstreamProblemMapper } from './downstream-problem.mapper.js';
export {
  ServiceError,
  ServiceErrorCode,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationFailedError,
  errorGuard,
} from './errors.js';
export { headerLinesOf } from './header-lines.js';
export {
  nodeRequestFrom,
  nodeRequestOf,
  nodeResponseOf,
  type HttpReply,
  type HttpRequest,
} from './http-platform.js';
export { IdempotencyKey } from './idempotency-key.decorator.js';
export { JsonContentTypeGuard } from './json-body.js';
export {
  ProblemExceptionFilter,
  describeError,
  type ProblemCodeMap,
  type ProblemCodeMapping,
  type ProblemExceptionFilterOptions,
  type ProblemMapper,
  type ProblemMapperContext,
  type ProblemReply,
} from './problem-exception.filter.js';
export { relay } from './relay.js';
export {
  Chain,
  requestContextOf,
  requestIdOf,
  type ChainContext,
  type RequestContext,
} from './request-context.js';
