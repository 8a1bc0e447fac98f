/**
 * Settles with `promise`, or rejects with `onTimeout()` after `ms`; a rejection of `promise` itself becomes
 * `mapError(error)`. One timer (unref'd) and one promise: stores wrap every call on the hot path in it.
 */
export function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => unknown,
  mapError: (error: unknown) => unknown,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(mapError(error));
      },
    );
  });
}
