/**
 * Mermaid sequence diagrams of what really happened in one scenario row, drawn from the services' journals
 * (`GET /__requests`: every request they answered or dropped, every delivery the worker handled), the fault rules
 * that fired (`GET /__faults`) and the calls the scenario itself made. Nothing here is scripted: a retry that did not
 * happen is not drawn, a dropped answer is drawn as a lost message.
 */
import { diedInOrders } from './died-requests.js';
import type { ClientCall } from './http.js';
import type { DeliveryEntry, FaultSnapshot, JournalEntry, RequestEntry, Service } from './target.js';

/** A note the scenario adds at a moment (e.g. "Redis stopped"). */
export interface TimedNote {
  readonly at: number;
  readonly text: string;
}

/** Everything a diagram is drawn from. */
export interface DiagramInput {
  readonly calls: readonly ClientCall[];
  readonly journal: readonly JournalEntry[];
  readonly faults: Partial<Record<Service, FaultSnapshot>>;
  readonly notes: readonly TimedNote[];
}

const PARTICIPANTS = [
  { id: 'C', name: 'Client', depth: 0 },
  { id: 'G', name: 'Gateway', depth: 1 },
  { id: 'O', name: 'Orders', depth: 2 },
  { id: 'Q', name: 'Queue', depth: 3 },
  { id: 'W', name: 'Worker', depth: 4 },
  { id: 'P', name: 'Payments', depth: 5 },
  { id: 'X', name: 'Provider', depth: 6 },
] as const;
type Participant = (typeof PARTICIPANTS)[number]['id'];

const ID_OF: Record<RequestEntry['service'], Participant> = {
  gateway: 'G',
  orders: 'O',
  payments: 'P',
  provider: 'X',
};

/** The journals' clocks agree to within a millisecond (see `journalClock`); a nested call may read that early or late. */
const CLOCK_SLACK_MS = 1;

interface Event {
  readonly at: number;
  /** Tie-break between events at the same instant: calls go down the chain, answers come back up. */
  readonly rank: number;
  readonly line: string;
  readonly uses: readonly Participant[];
}

/** A request as drawn: when it really arrived, and an answer never drawn before its nested calls' answers. */
interface Arrival extends RequestEntry {
  /** How long a `delay` fault held it before its handler (when one did). */
  readonly heldMs?: number;
  /** Not in its service's journal: the process died with the request (see `diedInOrders`). */
  readonly died?: boolean;
}

/** The diagram as Mermaid source (without the code fence). */
export function sequenceDiagram(input: DiagramInput): string {
  // The payment and invoice traffic; the ledger views and resets of provider-sim are the scenario's own reads.
  const posts = input.journal.filter(
    (entry): entry is RequestEntry => entry.service !== 'worker' && entry.method === 'POST',
  );
  const requests = arrivals([...posts, ...diedInOrders(posts)], input.faults);
  const deliveries = input.journal.filter((entry): entry is DeliveryEntry => entry.service === 'worker');
  const events = [...requestEvents(requests, input), ...deliveryEvents(deliveries)];

  const used = new Set<Participant>(events.flatMap((event) => event.uses));
  if (used.size === 0) used.add('C');
  const shown = PARTICIPANTS.filter((participant) => used.has(participant.id));
  const first = shown[0]?.id ?? 'C';
  const last = shown.at(-1)?.id ?? 'C';
  for (const note of input.notes) {
    events.push({
      at: note.at,
      rank: -1,
      line: `Note over ${first === last ? first : `${first},${last}`}: ${note.text}`,
      uses: [],
    });
  }

  const ordered = events.sort((a, b) => a.at - b.at || a.rank - b.rank);
  return [
    'sequenceDiagram',
    ...shown.map((participant) => `  participant ${participant.id} as ${participant.name}`),
    ...ordered.map((event) => `  ${sanitize(event.line)}`),
  ].join('\n');
}

/** Each request as its call, the time a delay fault held it, its answer (or lost answer), and a job it queued. */
function requestEvents(requests: readonly Arrival[], input: DiagramInput): Event[] {
  const events: Event[] = [];
  const chains = chainsOf(requests);
  const attempts = new Map<string, number>();
  const dropped = (service: Service): boolean =>
    (input.faults[service]?.rules ?? []).some((rule) => rule.action === 'drop' && rule.fired > 0);

  for (const entry of [...requests].sort((a, b) => a.startedAt - b.startedAt)) {
    const callee = ID_OF[entry.service];
    const caller = callerOf(entry, chains);
    const depth = depthOf(callee);
    const attemptKey = `${entry.service} ${entry.requestId} ${entry.route}`;
    const attempt = (attempts.get(attemptKey) ?? 0) + 1;
    attempts.set(attemptKey, attempt);
    const key =
      entry.idempotencyKeyDigest === undefined ? '' : `, key #${shortKey(entry.idempotencyKeyDigest)}`;
    const nth = attempt > 1 ? ` (attempt ${attempt})` : '';
    events.push({
      at: entry.startedAt,
      rank: depth,
      line: `${caller}->>${callee}: ${entry.method} ${route(entry)}${key}${nth}`,
      uses: [caller, callee],
    });
    if (entry.heldMs !== undefined) {
      events.push({
        at: entry.startedAt,
        rank: depth + 0.5,
        line: `Note over ${callee}: held ${entry.heldMs} ms before its handler (delay fault)`,
        uses: [callee],
      });
    }
    events.push({
      at: entry.endedAt,
      rank: 100 - depth,
      line: answerLine(entry, caller, callee, input.calls, dropped(entry.service)),
      uses: [caller, callee],
    });
    if (entry.service === 'orders' && entry.route.endsWith('/invoices') && entry.status === 202) {
      events.push({ at: entry.endedAt, rank: 100 - depth - 0.5, line: 'O->>Q: add job', uses: ['O', 'Q'] });
    }
  }
  return events;
}

/** Each delivery the worker handled: the queue's delivery and the acknowledgement (or its failure). */
function deliveryEvents(deliveries: readonly DeliveryEntry[]): Event[] {
  return [...deliveries]
    .sort((a, b) => a.startedAt - b.startedAt)
    .flatMap((delivery): Event[] => {
      const why = delivery.error === 'FAULT_INJECTED' ? 'the acknowledgement failed: fault' : delivery.error;
      const line =
        delivery.status === 'completed'
          ? `W-->>Q: acknowledged (receipt ${delivery.outcome ?? 'returned'})`
          : `W--xQ: not acknowledged (${why ?? 'failed'})`;
      return [
        {
          at: delivery.startedAt,
          rank: depthOf('W'),
          line: `Q->>W: delivery ${delivery.attempt} of job ${delivery.jobId.slice(0, 8)}`,
          uses: ['Q', 'W'],
        },
        { at: delivery.endedAt, rank: 100 - depthOf('W'), line, uses: ['Q', 'W'] },
      ];
    });
}

/**
 * The journal records a request when its handler starts, so a request a `delay` fault held is recorded that much
 * late: its arrival is moved back by the delay (the rule fires on the first matching requests, in order). And an
 * answer cannot leave before the answers of the calls it made (clocks of separate processes differ by a hair).
 */
function arrivals(
  entries: readonly RequestEntry[],
  faults: Partial<Record<Service, FaultSnapshot>>,
): Arrival[] {
  const held: Arrival[] = [];
  const byService = new Map<RequestEntry['service'], RequestEntry[]>();
  for (const entry of [...entries].sort((a, b) => a.startedAt - b.startedAt)) {
    byService.set(entry.service, [...(byService.get(entry.service) ?? []), entry]);
  }
  // When the caller's request began: a held request cannot have arrived before its caller sent it.
  const chains = chainsOf(entries);
  const callerStart = (entry: RequestEntry): number => {
    const upstream = callerOf(entry, chains);
    const starts = entries
      .filter(
        (e) =>
          ID_OF[e.service] === upstream && e.requestId === entry.requestId && e.startedAt <= entry.startedAt,
      )
      .map((e) => e.startedAt);
    return starts.length === 0 ? -Infinity : Math.max(...starts);
  };
  for (const [service, list] of byService) {
    const delays = (faults[service]?.rules ?? []).flatMap((rule) =>
      rule.action === 'delay' && rule.at === 'before-handler' ? Array<number>(rule.fired).fill(rule.ms) : [],
    );
    const remaining = [...list];
    for (const ms of delays) {
      // The held request is the first one (in handler order) that, moved back by the delay, still comes after
      // its caller's request: a later arrival that was not held may have reached its handler first.
      const index = remaining.findIndex((entry) => entry.startedAt - ms >= callerStart(entry));
      const [entry] = remaining.splice(index === -1 ? 0 : index, 1);
      if (entry !== undefined) held.push({ ...entry, startedAt: entry.startedAt - ms, heldMs: ms });
    }
    held.push(...remaining);
  }
  // Deepest first, so a correction propagates up the chain.
  const ordered = held.sort((a, b) => depthOf(ID_OF[b.service]) - depthOf(ID_OF[a.service]));
  for (const [i, entry] of ordered.entries()) {
    const nested = ordered
      .slice(0, i)
      .filter(
        (inner) =>
          inner.requestId === entry.requestId &&
          depthOf(ID_OF[inner.service]) > depthOf(ID_OF[entry.service]) &&
          inner.startedAt >= entry.startedAt - CLOCK_SLACK_MS &&
          inner.startedAt <= entry.endedAt + CLOCK_SLACK_MS,
      );
    const latest = Math.max(entry.endedAt, ...nested.map((inner) => inner.endedAt + 0.001));
    if (latest !== entry.endedAt) ordered[i] = { ...entry, endedAt: latest };
  }
  return ordered;
}

function chainsOf(entries: readonly RequestEntry[]): {
  viaGateway: Set<string>;
  viaOrders: Set<string>;
  viaPayments: Set<string>;
} {
  const idsOf = (service: RequestEntry['service']): Set<string> =>
    new Set(entries.filter((entry) => entry.service === service).map((entry) => entry.requestId));
  return { viaGateway: idsOf('gateway'), viaOrders: idsOf('orders'), viaPayments: idsOf('payments') };
}

function callerOf(
  entry: Arrival,
  chains: { viaGateway: Set<string>; viaOrders: Set<string>; viaPayments: Set<string> },
): Participant {
  switch (entry.service) {
    case 'gateway':
      return 'C';
    case 'orders':
      return chains.viaGateway.has(entry.requestId) ? 'G' : 'C';
    case 'payments':
      // Through the gateway means through orders, even when orders' journal died with it (a kill at a fault point).
      return chains.viaOrders.has(entry.requestId) || chains.viaGateway.has(entry.requestId) ? 'O' : 'C';
    case 'provider':
      if (entry.route.startsWith('/v1/emails')) return 'W';
      return chains.viaPayments.has(entry.requestId) ? 'P' : 'C';
  }
}

function depthOf(id: Participant): number {
  return PARTICIPANTS.find((participant) => participant.id === id)?.depth ?? 0;
}

function answerLine(
  entry: Arrival,
  caller: Participant,
  callee: Participant,
  calls: readonly ClientCall[],
  dropFired: boolean,
): string {
  if (entry.died === true) return `${callee}--x${caller}: no answer (the process died with the request)`;
  if (entry.status === 'aborted') {
    const why = dropFired
      ? 'drop fault: connection reset after the handler ran'
      : 'connection closed, no answer';
    return `${callee}--x${caller}: answer lost (${why})`;
  }
  const parts = [String(entry.status)];
  // Problem bodies are known where the scenario read them; a 4xx problem passes up the hops unchanged (same status,
  // same bytes), so an inner answer with the client's status carries the client's code.
  const call = calls.find((c) => c.requestId === entry.requestId && c.status === entry.status);
  if (call?.code !== undefined && (caller === 'C' || entry.status < 500)) parts.push(call.code);
  if (entry.replayed) {
    parts.push(entry.service === 'provider' ? 'replayed by the provider (no new effect)' : 'replayed');
  } else if (entry.service === 'provider' && entry.status === 201) {
    parts.push(entry.route.startsWith('/v1/emails') ? 'email sent' : 'card charged');
  }
  return `${callee}-->>${caller}: ${parts.join(' ')}`;
}

function route(entry: Arrival): string {
  return (entry.route === 'unmatched' ? entry.path : entry.route).replace(/:([A-Za-z]+)/g, '{$1}');
}

/** The last 8 characters of a key, quotes of an sf-string removed: enough to tell keys apart in a diagram. */
/** A key as drawn: the head of its digest (journals keep no key), enough to tell one key from another. */
function shortKey(digest: string): string {
  return digest.slice(0, 8);
}

/** Characters Mermaid reads as syntax inside a message. */
function sanitize(line: string): string {
  return line.replace(/[;#]/g, ' ');
}
