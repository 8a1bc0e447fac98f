import http from 'node:http';
import https from 'node:https';

/**
 * A base URL taken apart once, when the client is created: each attempt then sends to its host and port with a
 * path string, instead of parsing a URL (and Node converting it back to options) on every attempt.
 */
export interface Target {
  /** As given (`AttemptInfo.baseURL`). */
  readonly baseURL: string;
  readonly protocol: 'http:' | 'https:';
  /** The host to connect to (an IPv6 address without its brackets). */
  readonly host: string;
  /** The host as the URL writes it (`server.address`). */
  readonly hostname: string;
  /** The port as sent: the scheme's default when the URL has none. */
  readonly port: number;
  /** `scheme://host[:port]` (`url.full` is this and the request path). */
  readonly origin: string;
  /** The base URL's path, without a trailing slash: what every request path goes under. */
  readonly pathPrefix: string;
  /** The keep-alive agent of this scheme (one per client). */
  readonly agent: http.Agent;
}

/** The keep-alive agents of one client, with Node's global agents' settings (LIFO, idle sockets closed after 5 s). */
export interface Agents {
  readonly http: http.Agent;
  readonly https: https.Agent;
}

/** A client's {@link Agents}, built once. */
export function keepAliveAgents(): Agents {
  const options = { keepAlive: true, scheduling: 'lifo', timeout: 5000 } as const;
  return { http: new http.Agent(options), https: new https.Agent(options) };
}

/** `baseURL` as a {@link Target}; throws when it is not an http(s) URL. */
export function targetOf(baseURL: string, agents: Agents): Target {
  const url = new URL(baseURL);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`not an http(s) URL: ${baseURL}`);
  }
  const secure = url.protocol === 'https:';
  const pathPrefix = url.pathname.replace(/\/+$/, '');
  return {
    baseURL,
    protocol: url.protocol,
    host: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    hostname: url.hostname,
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    origin: url.origin,
    pathPrefix,
    agent: secure ? agents.https : agents.http,
  };
}

/** The request path of `path` on `target` (one slash between them, as a base URL with a path prefix expects). */
export function pathOn(target: Target, path: string): string {
  return `${target.pathPrefix}/${path.charCodeAt(0) === 47 ? path.replace(/^\/+/, '') : path}`;
}
