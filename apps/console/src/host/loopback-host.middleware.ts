import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConsoleError, ConsoleErrorCode } from '../runs/console-errors.js';

/** The names of the console's loopback addresses, as a browser writes them in `Host`. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'] as const;

/** How much of a refused `Host` the problem's detail repeats. */
const SHOWN_HOST_CHARS = 100;

/**
 * Whether `host` (a `Host` header) names the console itself on `port`: a loopback name and that port, compared
 * without case. Port 80 may go unwritten: a browser leaves out its default port.
 */
export function isOwnHost(host: string, port: number): boolean {
  const lower = host.toLowerCase();
  return LOOPBACK_NAMES.some((name) => lower === `${name}:${port}` || (port === 80 && lower === name));
}

/**
 * Refuses every request whose `Host` is not the console's own loopback address and port: 421 `host_not_allowed`,
 * before any route runs, so nothing is started. Listening on loopback is not enough: through DNS rebinding a page
 * of any site re-resolves its own name to 127.0.0.1, and the browser, which judges origins by name, lets it start
 * runs and read the answers. Such a request still carries that site's name in `Host`, so the name is checked, not
 * the address. The port is the one the request arrived on: the console's own, whatever `CONSOLE_PORT` says (0
 * included), and never another local service's.
 */
@Injectable()
export class LoopbackHostMiddleware implements NestMiddleware {
  use(req: IncomingMessage, _res: ServerResponse, next: () => void): void {
    const host = req.headers.host ?? '';
    const port = req.socket.localPort;
    if (port === undefined || !isOwnHost(host, port)) {
      const names = LOOPBACK_NAMES.map((name) => `${name}:${port ?? '<port>'}`).join(', ');
      const shown = JSON.stringify(host.slice(0, SHOWN_HOST_CHARS));
      throw new ConsoleError(
        ConsoleErrorCode.HostNotAllowed,
        `The console answers only as ${names}, not as ${shown}: open it at one of those`,
      );
    }
    next();
  }
}
