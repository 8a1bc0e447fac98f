import { createServiceClient, type AttemptInfo, type ServiceClientOptions } from '../../../src/index.js';

/** A service client and the attempts it made, in order, as its `onAttempt` hook reported them. */
export interface RecordingClient {
  client: ReturnType<typeof createServiceClient>;
  attempts: AttemptInfo[];
}

/** {@link createServiceClient} with `options`, its `onAttempt` recording every attempt into `attempts`. */
export function clientRecordingAttempts(options: Omit<ServiceClientOptions, 'onAttempt'>): RecordingClient {
  const attempts: AttemptInfo[] = [];
  const client = createServiceClient({ ...options, onAttempt: (attempt) => attempts.push(attempt) });
  return { client, attempts };
}
