import type { IncomingMessage, RequestListener } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { SideListener, type SideListenerAddress } from '../side-listener.js';
import { requestListenerOf } from '../shell/shell-http-adapter.js';

/**
 * Where the `/__*` routes are served when they have a listener of their own (`ADMIN_HOST`, `ADMIN_PORT`; 0 picks a
 * free port, read back with {@link AdminListener.port}), with the app's own server limits.
 */
export type AdminListenerOptions = SideListenerAddress;

/** DI token of the {@link AdminListenerOptions} (absent: the `/__*` routes are on the app's port). */
export const ADMIN_LISTENER_OPTIONS = Symbol('ADMIN_LISTENER_OPTIONS');

// Marked when the admin server hands a request to the app: which listener a request came through cannot be told from
// the request itself (a port number may be 0 in the config, a proxy may front either).
const viaAdminListener = new WeakSet<IncomingMessage>();

/** True when `req` arrived on the {@link AdminListener}, not on the app's port. */
export function arrivedOnAdminListener(req: IncomingMessage): boolean {
  return viaAdminListener.has(req);
}

/**
 * The `/__*` routes (`/__faults`, `/__config`, `/__requests`) on a port of their own, so the public listener (the
 * gateway's) never serves them: the same app answers both ports (one set of routes, middleware and filter), and the
 * shell's {@link CallerAuthenticationMiddleware} answers 404 to a `/__*` path on the app's port and to any other path
 * on this one. Opened once the app is up, closed after the HTTP drain (a scenario may read the journal while the
 * app drains).
 */
@Injectable()
export class AdminListener extends SideListener {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(ADMIN_LISTENER_OPTIONS) options: AdminListenerOptions,
  ) {
    super(options, 'admin');
  }

  protected handler(): RequestListener {
    const app = requestListenerOf(this.adapterHost.httpAdapter);
    return (req, res) => {
      viaAdminListener.add(req);
      app(req, res);
    };
  }
}
