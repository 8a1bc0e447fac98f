import { connect, createServer, type Server, type Socket } from 'node:net';

/** Where a {@link startTcpProxy} forwards to. */
export interface TcpProxyTarget {
  readonly host: string;
  readonly port: number;
}

/** What a test can do to the replies of one proxied connection. */
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
  /** Closes both sides now; replies not yet delivered are lost. */
  drop(): void;
}

/** A TCP proxy a test puts between a client and a server (e.g. Redis) to lose, hold or delay replies. */
export interface TcpProxy {
  readonly host: string;
  readonly port: number;
  /** `redis://host:port` of the proxy. */
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
  /** Drops every connection and stops listening. */
  close(): Promise<void>;
}

class Connection implements ProxyConnection {
  readonly delivered: string[] = [];
  readonly forwarded: string[] = [];
  closed = false;
  private held: Buffer[] | undefined;
  private delayMs = 0;
  // Replies go out through one chain so that holding and delaying never reorder them.
  private chain: Promise<void> = Promise.resolve();
  private dropOnReply: (() => void) | undefined;

  constructor(
    private readonly client: Socket,
    private readonly upstream: Socket,
    private readonly proxy: Proxy,
  ) {
    client.on('data', (chunk: Buffer) => this.request(chunk));
    upstream.on('data', (chunk: Buffer) => this.reply(chunk));
    for (const socket of [client, upstream]) {
      socket.on('error', () => this.drop());
      socket.on('close', () => this.drop());
    }
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

  drop(): void {
    if (this.closed) return;
    this.closed = true;
    this.client.destroy();
    this.upstream.destroy();
    this.dropOnReply?.();
  }

  private request(chunk: Buffer): void {
    const text = chunk.toString('latin1');
    this.forwarded.push(text);
    const dropper = this.proxy.takeDropper(text);
    if (dropper) this.dropOnReply = dropper;
    this.upstream.write(chunk);
  }

  private reply(chunk: Buffer): void {
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

class Proxy {
  readonly connections: Connection[] = [];
  holding = false;
  delayMs = 0;
  private droppers: { matches: (request: string) => boolean; dropped: () => void }[] = [];

  takeDropper(request: string): (() => void) | undefined {
    const index = this.droppers.findIndex((d) => d.matches(request));
    if (index < 0) return undefined;
    const [dropper] = this.droppers.splice(index, 1);
    return dropper!.dropped;
  }

  addDropper(matches: (request: string) => boolean): Promise<void> {
    return new Promise((dropped) => this.droppers.push({ matches, dropped }));
  }
}

/**
 * Starts a TCP proxy on a free port of 127.0.0.1 in front of `target`. Every client connection gets its own
 * upstream connection; tests lose replies ({@link TcpProxy.dropAfterRequest}), hold them or delay them.
 */
export async function startTcpProxy(target: TcpProxyTarget): Promise<TcpProxy> {
  const state = new Proxy();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const connection = new Connection(client, upstream, state);
    if (state.holding) connection.holdReplies();
    connection.delayReplies(state.delayMs);
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
    dropAfterRequest: (matches) => state.addDropper(matches),
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
    close: async () => {
      for (const c of state.connections) c.drop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
