export { DEADLINE_HEADER, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from './headers.js';
export { retryAfterMs } from './backoff.js';
export { parseDeadline, remainingMs } from './deadline.js';
export {
  createServiceClient,
  type AttemptInfo,
  type CallOptions,
  type HttpMethod,
  type RequestOptions,
  type RetryInfo,
  type ServiceClient,
  type ServiceClientOptions,
  type ServiceResponse,
} from './service-client.js';
export {
  HttpClientError,
  HttpClientErrorCode,
  InvalidRequestError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  isHttpClientError,
  type HttpClientErrorContext,
  type UpstreamResponse,
} from './http-client.errors.js';
