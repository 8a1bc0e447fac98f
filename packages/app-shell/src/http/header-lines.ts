import type { IncomingMessage } from 'node:http';

/**
 * Every field line of the request header `name` (lower case), in order, as `req.headersDistinct[name]` lists them;
 * `undefined` when the request has none. Read from `req.rawHeaders`: Node builds `headersDistinct` for every header
 * of the request on first use, which costs a hop several times what reading the one header it needs does.
 */
export function headerLinesOf(req: IncomingMessage, name: string): string[] | undefined {
  const raw = req.rawHeaders;
  let lines: string[] | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const field = raw[i]!;
    if (field.length === name.length && field.toLowerCase() === name) (lines ??= []).push(raw[i + 1]!);
  }
  return lines;
}
