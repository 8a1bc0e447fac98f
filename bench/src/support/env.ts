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
