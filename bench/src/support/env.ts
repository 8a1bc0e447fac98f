/** Settings the benchmark scripts take from the environment, refused with a clear message when malformed. */

/** `process.env[name]` as a positive integer, `fallback` when unset or empty. */
export function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** `process.env[name]` as a positive number, `fallback` when unset or empty. */
export function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

/** Reads a URL from the environment and refuses anything but loopback: load must stay on this machine. */
export function loopbackUrl(name: string, required: boolean): string | undefined {
  const raw = process.env[name];
  if (!raw) {
    if (required) {
      console.error(
        `${name} is not set: start the payments service, then run with ${name}=http://127.0.0.1:PORT/...`,
      );
      process.exitCode = 2;
    }
    return undefined;
  }
  const url = new URL(raw);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
    throw new Error(
      `${name} must point to this machine (127.0.0.1, localhost or [::1]), got ${url.hostname}`,
    );
  }
  return url.toString();
}
