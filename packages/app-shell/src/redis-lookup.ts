import { lookup as dnsLookup } from 'node:dns';
import { createConnection, type LookupFunction, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { AbstractConnector, type RedisOptions } from 'ioredis';

/**
 * A `lookup` (as `net.connect` takes it) that asks `lookup` at most once at a time per question: a call made while
 * the same question (host name, family, hints, all) is still being answered waits for that answer instead of
 * asking again. Nothing is cached: the next question after an answer asks afresh, so a restarted server's new
 * address is found.
 *
 * Why: Node resolves names with getaddrinfo on libuv's thread pool (4 threads by default), and a thread stays
 * busy until the resolver gives up, however soon the socket that asked is destroyed. While a Redis host name does
 * not resolve and the resolver is slow to say so (a stopped container's name on Docker's embedded DNS with no
 * upstream: 10 s), every reconnect attempt of every connection (every `connectTimeout` plus its backoff) would take
 * one more thread, until the provider's lookups, file writes and crypto queued behind them: a Redis outage that
 * timed out the payment provider's calls. Shared, an outage holds one thread per host name.
 */
export function sharedLookup(lookup: LookupFunction = dnsLookup as LookupFunction): LookupFunction {
  const waiting = new Map<string, Parameters<LookupFunction>[2][]>();
  return (hostname, options, callback) => {
    const question = JSON.stringify([hostname, options.family, options.hints, options.all, options.order]);
    const callbacks = waiting.get(question);
    if (callbacks !== undefined) {
      callbacks.push(callback);
      return;
    }
    waiting.set(question, [callback]);
    lookup(hostname, options, (error, address, family) => {
      const answered = waiting.get(question) ?? [];
      waiting.delete(question);
      for (const cb of answered) cb(error, address, family);
    });
  };
}

/** The options of a standalone ioredis connection that its connector reads (as ioredis' own StandaloneConnector). */
interface ConnectorOptions {
  readonly host?: string;
  readonly port?: number;
  readonly family?: number;
  readonly path?: string;
  readonly tls?: ConnectionOptions;
  readonly disconnectTimeout?: number;
}

/** What ioredis answers a connection closed before it was made (its `CONNECTION_CLOSED_ERROR_MSG`). */
const CONNECTION_CLOSED = 'Connection is closed.';

/**
 * An ioredis connector (the `Connector` option) that opens a standalone connection as ioredis' own does, except
 * that host names are resolved through the class's `lookup`: one {@link sharedLookup} for the whole process, so
 * all the connections of a service to one host name ({@link createRedisClient}, {@link createRedisConnection},
 * BullMQ's), reconnecting or not, hold at most one resolver thread between them. A subclass may set another
 * `lookup` (tests do).
 */
export class SharedLookupConnector extends AbstractConnector {
  /** How this class's connections resolve host names. */
  protected static readonly lookup: LookupFunction = sharedLookup();

  private readonly options: ConnectorOptions;

  // ioredis hands a connector the connection's whole options object.
  constructor(options: unknown) {
    const read = options as ConnectorOptions;
    super(read.disconnectTimeout ?? 2_000);
    this.options = read;
  }

  connect(): Promise<Socket> {
    const { host, port, family, path, tls } = this.options;
    const { lookup } = this.constructor as typeof SharedLookupConnector;
    this.connecting = true;
    // Like ioredis: the socket is made on the next tick, unless disconnect() came first.
    return new Promise((resolve, reject) => {
      process.nextTick(() => {
        if (!this.connecting) return reject(new Error(CONNECTION_CLOSED));
        try {
          const stream =
            path !== undefined
              ? createConnection({ path })
              : tls !== undefined
                ? tlsConnect({ ...(port === undefined ? {} : { port }), host, lookup, ...tls })
                : createConnection({ port: port ?? 6379, host, ...(family ? { family } : {}), lookup });
          stream.once('error', (error: Error) => (this.firstError = error));
          this.stream = stream;
          resolve(stream);
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
  }
}

/** Spread into ioredis options (a Cluster's `redisOptions` too) to connect with {@link SharedLookupConnector}. */
export const SHARED_LOOKUP_REDIS_OPTIONS: Pick<RedisOptions, 'Connector'> = {
  Connector: SharedLookupConnector,
};
