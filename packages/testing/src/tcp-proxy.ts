import { connect, createServer, type Server, type Socket } from 'node:net';

/** Where a {@link startTcpProxy} forwards to. */
export interface TcpProxyTarget {
  readonly host: string;
  readonly port: number;
}

/** Which way bytes travel through the proxy: `requests` client to server, `replies` server to client. */
export const ProxyDirection = {
  Requests: 'requests',
  Replies: 'replies',
  Both: 'both',
} as const;

/** One of {@link ProxyDirection}'s values. */
export type ProxyDirection = (typeof ProxyDirection)[keyof typeof ProxyDirection];

/** What a test can do to one proxied connection: lose, hold, delay or swallow its bytes, or reset it. */
export interface ProxyConnection {
  /** Every chunk the server sent that reached the client, in order (as latin1 text, for matching). */
  readonly delivered: readonly string[];
  /** Every chunk the client sent that reached the server, in order. */
  readonly forwarded: readonly string[];
  readonly closed: boolean;
  /** Keep the server's replies from the client until {@link releaseReplies} (requests still reach the server). */
  holdReplies(): void;
  /** Deliver held replies, in order, and stop holding. */
  releaseReplies(): void;
  /** Deliver each later reply `ms` after the server sent it (0: at once), keeping their order. */
  delayReplies(ms: number): void;
  /** Delay each later request `ms` before it reaches the server (0: at once), keeping their order. */
  delayRequests(ms: number): void;
  /**
   * Swallow every later byte going `direction`, keeping both sockets open: a network that silently loses packets
   * (neither side hears of it until its own timeout). {@link heal} ends it.
   */
  blackhole(direction?: ProxyDirection): void;
  /** Stop swallowing and delaying (swallowed bytes stay lost; held replies stay held). */
  heal(): void;
  /** Closes both sides now; replies not yet delivered are lost. */
  drop(): void;
  /** Like {@link drop}, but with a TCP RST to both sides (`ECONNRESET`), as a peer or middlebox resetting. */
  reset(): void;
}

/**
 * A TCP proxy a test puts between a client and a server (Redis, PostgreSQL: it only moves bytes) to lose, hold,
 * delay or swallow either direction, or reset connections.
 */
export interface TcpProxy {
  readonly host: string;
  readonly port: number;
  /** `redis://host:port` of the proxy (a PostgreSQL client takes {@link host} and {@link port}). */
  readonly url: string;
  /** Every connection accepted so far, in order. */
  readonly connections: readonly ProxyConnection[];
  /**
   * The next request whose text `matches` is forwarded; once the server has started to answer it, the connection
   * is closed before that answer (or anything after it) reaches the client: the server did the work, the client
   * never heard. Resolves when the connection was dropped.
   */
  dropAfterRequest(matches: (request: string) => boolean): Promise<void>;
  /** {@link ProxyConnection.holdReplies} on every connection, current and future. */
  holdReplies(): void;
  /** {@link ProxyConnection.releaseReplies} on every connection, and stop holding new ones. */
  releaseReplies(): void;
  /** {@link ProxyConnection.delayReplies} on every connection, current and future. */
  delayReplies(ms: number): void;
  /** {@link ProxyConnection.delayRequests} on every connection, current and future. */
  delayRequests(ms: number): void;
  /** {@link ProxyConnection.blackhole} on every connection, current and future. */
  blackhole(direction?: ProxyDirection): void;
  /** {@link ProxyConnection.heal} on every connection, and new ones start healthy. */
  heal(): void;
  /** {@link ProxyConnection.reset} on every open connection (new ones are accepted as usual). */
  resetAll(): void;
  /**
   * The next request whose text `matches` is forwarded, and its connection is reset at once, before any answer:
   * the server may or may not have run it (a reset can discard bytes it had not read yet), the client gets `ECONNRESET`. Resolves when the connection was reset.
   */
  resetAfterRequest(matches: (request: string) => boolean): Promise<void>;
  /** Drops every connection and stops listening. */
  close(): Promise<void>;
}

class Connection implements ProxyConnection {
  readonly delivered: string[] = [];
  readonly forwarded: string[] = [];
  closed = false;
  private held: Buffer[] | undefined;
  private delayMs = 0;
  private requestDelayMs = 0;
  private swallow: ProxyDirection | undefined;
  // Each direction goes out through one chain so that holding and delaying never reorder it.
  private chain: Promise<void> = Promise.resolve();
  private requestChain: Promise<void> = Promise.resolve();
  private dropOnReply: (() => void) | undefined;
  private halfGone = false;

  constructor(
    private readonly client: Socket,
    private readonly upstream: Socket,
    private readonly proxy: Proxy,
  ) {
    client.on('data', (chunk: Buffer) => this.request(chunk));
    upstream.on('data', (chunk: Buffer) => this.reply(chunk));
    // A side that goes away is told to the other side, unless that direction is swallowed: then, as on a real
    // network, the other side never hears (until heal or close).
    // A side that closes does so after the bytes it sent, delayed or not: the other side hears of it last.
    const gone = (direction: ProxyDirection, flushed: () => Promise<void>) => () => {
      if (this.swallows(direction)) this.halfGone = true;
      else void flushed().then(() => this.drop());
    };
    client.on('error', () => this.drop());
    upstream.on('error', () => this.drop());
    client.on(
      'close',
      gone(ProxyDirection.Requests, () => this.requestChain),
    );
    upstream.on(
      'close',
      gone(ProxyDirection.Replies, () => this.chain),
    );
  }

  holdReplies(): void {
    this.held ??= [];
  }

  releaseReplies(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const chunk of held) this.send(chunk);
  }

  delayReplies(ms: number): void {
    this.delayMs = ms;
  }

  delayRequests(ms: number): void {
    this.requestDelayMs = ms;
  }

  blackhole(direction: ProxyDirection = ProxyDirection.Both): void {
    this.swallow = direction;
  }

  heal(): void {
    this.swallow = undefined;
    this.delayMs = 0;
    this.requestDelayMs = 0;
    if (this.halfGone) this.drop();
  }

  drop(): void {
    this.close(false);
  }

  reset(): void {
    this.close(true);
  }

  private close(reset: boolean): void {
    if (this.closed) return;
    this.closed = true;
    for (const socket of [this.client, this.upstream]) {
      // resetAndDestroy needs a connected socket; one still connecting is simply destroyed.
      if (reset && !socket.connecting) socket.resetAndDestroy();
      else socket.destroy();
    }
    this.dropOnReply?.();
  }

  private swallows(direction: ProxyDirection): boolean {
    return this.swallow === ProxyDirection.Both || this.swallow === direction;
  }

  private request(chunk: Buffer): void {
    if (this.swallows(ProxyDirection.Requests)) return;
    const text = chunk.toString('latin1');
    const fault = this.proxy.takeFault(text);
    if (fault?.kind === 'drop') this.dropOnReply = fault.done;
    const delayMs = this.requestDelayMs;
    this.requestChain = this.requestChain
      .then(() => (delayMs > 0 ? new Promise<void>((r) => setTimeout(r, delayMs)) : undefined))
      .then(() => {
        if (this.closed) return;
        this.forwarded.push(text);
        this.upstream.write(chunk, () => {
          if (fault?.kind !== 'reset') return;
          this.reset();
          fault.done();
        });
      });
  }

  private reply(chunk: Buffer): void {
    if (this.swallows(ProxyDirection.Replies)) return;
    if (this.dropOnReply) {
      // The server is answering the marked request (or one before it): it ran; the client must not hear of it.
      this.drop();
      return;
    }
    if (this.held) this.held.push(chunk);
    else this.send(chunk);
  }

  private send(chunk: Buffer): void {
    const delayMs = this.delayMs;
    this.chain = this.chain
      .then(() => (delayMs > 0 ? new Promise<void>((r) => setTimeout(r, delayMs)) : undefined))
      .then(() => {
        if (this.closed) return;
        this.delivered.push(chunk.toString('latin1'));
        this.client.write(chunk);
      });
  }
}

/** A fault armed for the next matching request: drop before its answer, or reset right after sending it. */
interface RequestFault {
  readonly kind: 'drop' | 'reset';
  readonly matches: (request: string) => boolean;
  readonly done: () => void;
}

class Proxy {
  readonly connections: Connection[] = [];
  holding = false;
  delayMs = 0;
  requestDelayMs = 0;
  swallow: ProxyDirection | undefined;
  private faults: RequestFault[] = [];

  takeFault(request: string): RequestFault | undefined {
    const index = this.faults.findIndex((f) => f.matches(request));
    if (index < 0) return undefined;
    return this.faults.splice(index, 1)[0];
  }

  addFault(kind: RequestFault['kind'], matches: (request: string) => boolean): Promise<void> {
    return new Promise((done) => this.faults.push({ kind, matches, done }));
  }

  /** The current fault settings, applied to a new connection. */
  configure(connection: Connection): void {
    if (this.holding) connection.holdReplies();
    connection.delayReplies(this.delayMs);
    connection.delayRequests(this.requestDelayMs);
    if (this.swallow) connection.blackhole(this.swallow);
  }
}

/**
 * Starts a TCP proxy on a free port of 127.0.0.1 in front of `target`. Every client connection gets its own
 * upstream connection; tests lose replies ({@link TcpProxy.dropAfterRequest}), hold or delay them, reset
 * connections, or swallow one direction ({@link TcpProxy.blackhole}).
 */
export async function startTcpProxy(target: TcpProxyTarget): Promise<TcpProxy> {
  const state = new Proxy();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const connection = new Connection(client, upstream, state);
    state.configure(connection);
    state.connections.push(connection);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
  const { port } = address;
  return {
    host: '127.0.0.1',
    port,
    url: `redis://127.0.0.1:${port}`,
    connections: state.connections,
    dropAfterRequest: (matches) => state.addFault('drop', matches),
    resetAfterRequest: (matches) => state.addFault('reset', matches),
    holdReplies: () => {
      state.holding = true;
      for (const c of state.connections) c.holdReplies();
    },
    releaseReplies: () => {
      state.holding = false;
      for (const c of state.connections) c.releaseReplies();
    },
    delayReplies: (ms) => {
      state.delayMs = ms;
      for (const c of state.connections) c.delayReplies(ms);
    },
    delayRequests: (ms) => {
      state.requestDelayMs = ms;
      for (const c of state.connections) c.delayRequests(ms);
    },
    blackhole: (direction = ProxyDirection.Both) => {
      state.swallow = direction;
      for (const c of state.connections) c.blackhole(direction);
    },
    heal: () => {
      state.swallow = undefined;
      state.delayMs = 0;
      state.requestDelayMs = 0;
      for (const c of state.connections) c.heal();
    },
    resetAll: () => {
      for (const c of state.connections) c.reset();
    },
    close: async () => {
      for (const c of state.connections) c.drop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
