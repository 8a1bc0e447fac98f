/** The path of a URL, without query or fragment. */
export function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

/** Segments of a path, ignoring leading and trailing slashes (`/v1/payments/` -> `['v1', 'payments']`). */
export function segmentsOf(path: string): string[] {
  const trimmed = pathOf(path).replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

/** Whether `path` matches `pattern`, where a `*` or `:name` segment of the pattern matches exactly one segment. */
export function pathMatches(pattern: string, path: string): boolean {
  const expected = segmentsOf(pattern);
  const actual = segmentsOf(path);
  if (expected.length !== actual.length) {
    return false;
  }
  return expected.every((segment, i) => segment === '*' || segment.startsWith(':') || segment === actual[i]);
}

/** Whether `method` matches a rule's method (`*` matches any). */
export function methodMatches(ruleMethod: string, method: string): boolean {
  return ruleMethod === '*' || ruleMethod === method.toUpperCase();
}
