/**
 * True when `ping` resolves within `timeoutMs`, false when it rejects or is still pending then: a readiness check
 * that a silent dependency (a paused server, a hung host) cannot hold.
 *
 * The bound is decided after the event loop has read its sockets, not in the timer itself: timers run before
 * the poll phase, so a service busy past the bound (a burst of requests on a loaded CPU) would otherwise read the
 * answer waiting for it as a dependency down, and report itself not ready exactly when it is under load.
 */
export async function answersWithin(ping: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => setImmediate(() => resolve(false)), timeoutMs);
  });
  try {
    return await Promise.race([ping().then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
