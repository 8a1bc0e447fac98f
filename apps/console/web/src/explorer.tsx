/** The payment explorer: one payment of your own, its answer lost where you say, and its trace hop by hop. */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  api,
  follow,
  resume,
  type OrderView,
  type PaymentRequestBody,
  type PaymentTrace,
  type RunView,
} from './api.js';
import { RunProgress } from './run-progress.js';
import { SequenceDiagram } from './sequence-diagram.js';

const newKey = (): string => `explorer-${Math.random().toString(36).slice(2, 10)}`;

export function Explorer({ stackUp }: { stackUp: boolean }) {
  const [run, setRun] = useState<RunView | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    resume('explorer', setRun).catch((e: unknown) => setError(String(e)));
  }, []);
  const send = async (body: PaymentRequestBody): Promise<void> => {
    setError(undefined);
    try {
      await follow((await api.pay(body)).id, setRun);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  const row = run?.rows[0];
  return (
    <section class="explorer" aria-labelledby="explorer-title">
      <h2 id="explorer-title">Payment explorer</h2>
      <PaymentForm disabled={run?.state === 'running' || !stackUp} onSend={(body) => void send(body)} />
      <RunProgress run={run} error={error} />
      {run?.trace !== undefined && <Trace trace={run.trace} />}
      {row?.diagram !== undefined && (
        <SequenceDiagram source={row.diagram} label="Sequence diagram of the payment" />
      )}
    </section>
  );
}

/** The payment to send: amount, key, and where its answer is lost (after payments by default: a retry to watch). */
function PaymentForm({
  disabled,
  onSend,
}: {
  disabled: boolean;
  onSend: (body: PaymentRequestBody) => void;
}) {
  const [amount, setAmount] = useState(1999);
  const [key, setKey] = useState(newKey);
  const [afterPayments, setAfterPayments] = useState(true);
  const [afterOrders, setAfterOrders] = useState(false);
  const submit = (event: Event): void => {
    event.preventDefault();
    onSend({ amount, key, loseAfterPayments: afterPayments, loseAfterOrders: afterOrders });
  };
  return (
    <form onSubmit={submit}>
      <label>
        Amount (cents, EUR)
        <input
          type="number"
          min={1}
          required
          value={amount}
          onInput={(e) => setAmount(Number(e.currentTarget.value))}
        />
      </label>
      <label>
        Idempotency key
        <input value={key} required onInput={(e) => setKey(e.currentTarget.value)} />
      </label>
      <button type="button" onClick={() => setKey(newKey())}>
        New key
      </button>
      <Toggle label="Lose the answer after payments" checked={afterPayments} onChange={setAfterPayments} />
      <Toggle label="Lose the answer after orders" checked={afterOrders} onChange={setAfterOrders} />
      <button type="submit" disabled={disabled}>
        Send payment
      </button>
    </form>
  );
}

function Trace({ trace }: { trace: PaymentTrace }) {
  return (
    <div class="trace">
      <p class="answer">
        Answer to the client: <strong data-testid="answer">{trace.answer.status}</strong>
        {trace.answer.code !== undefined && ` ${trace.answer.code}`}
        {trace.answer.replayed && ' (replayed)'}
      </p>
      <Attempts attempts={trace.attempts} />
      <Records records={trace.records} />
      <Table
        caption="The order in PostgreSQL (through the gateway)"
        columns={['when', 'status', 'paid / amount', 'payments']}
      >
        <OrderRow label="before" order={trace.orderBefore} />
        <OrderRow label="after" order={trace.orderAfter} />
      </Table>
      <p>
        Provider charges for this key: <strong data-testid="charges">{trace.charges.length}</strong>
        {trace.charges.map((c) => ` ${c.id} (${c.amount} ${c.currency})`).join(',')}
      </p>
    </div>
  );
}

function Attempts({ attempts }: { attempts: PaymentTrace['attempts'] }) {
  return (
    <Table
      caption="Attempts per hop (the services' journals)"
      columns={['at', 'service', 'route', 'answer', 'took']}
    >
      {attempts.map((attempt, i) => (
        <tr key={i} data-service={attempt.service}>
          <td>+{attempt.atMs} ms</td>
          <th scope="row">{attempt.service}</th>
          <td>POST {attempt.route}</td>
          <td>
            {attempt.status === 'aborted' ? 'answer lost' : attempt.status}
            {attempt.replayed && ' replayed'}
          </td>
          <td>{attempt.durationMs} ms</td>
        </tr>
      ))}
    </Table>
  );
}

function Records({ records }: { records: PaymentTrace['records'] }) {
  return (
    <Table
      caption="The key's record, per attempt (the coordinators' spans)"
      columns={['service', 'store', 'before', 'after']}
    >
      {records.map((record, i) => (
        <tr key={i}>
          <th scope="row">{record.service}</th>
          <td>{record.store}</td>
          <td>{record.before}</td>
          <td>{record.after}</td>
        </tr>
      ))}
    </Table>
  );
}

function OrderRow({ label, order }: { label: string; order: OrderView }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td>{order.status}</td>
      <td>
        {order.paidAmount} / {order.amount}
      </td>
      <td>{order.payments}</td>
    </tr>
  );
}

/** A table with a caption and a header row; its rows are the children. */
function Table({
  caption,
  columns,
  children,
}: {
  caption: string;
  columns: string[];
  children: ComponentChildren;
}) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col" key={column}>
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

/** A labelled checkbox. */
function Toggle(props: { label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label class="check">
      <input
        type="checkbox"
        checked={props.checked}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
      />
      {props.label}
    </label>
  );
}
