/**
 * Draws the engine's sequence diagram (Mermaid's sequenceDiagram syntax, the subset diagram.ts writes) as SVG:
 * participants, calls, answers, lost answers and notes. Drawn here rather than by Mermaid: the subset is small,
 * the page stays a few kB, and each arrow is an element a test (and a screen reader) can find by its label.
 */
import { useId } from 'preact/hooks';
import { parseDiagram, type DiagramLine } from './parse-diagram.js';

const COLUMN = 150;
const ROW = 30;
const TOP = 40;

/** Where a participant's lifeline is, and its name. */
interface Lanes {
  x(id: string): number;
  name(id: string): string;
}

/** The diagram of one row; new arrows fade in as the row's journals grow. */
export function SequenceDiagram({ source, label }: { source: string; label: string }) {
  const { participants, lines } = parseDiagram(source);
  // One arrowhead per diagram: several diagrams share the page, and an id is unique in it.
  const head = `head-${useId()}`;
  const lanes: Lanes = {
    x: (id) => participants.findIndex((p) => p.id === id) * COLUMN + COLUMN / 2,
    name: (id) => participants.find((p) => p.id === id)?.name ?? id,
  };
  const width = Math.max(participants.length, 1) * COLUMN;
  const height = TOP + lines.length * ROW + 20;
  return (
    <figure class="diagram">
      <svg role="img" aria-label={label} width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
        <defs>
          <marker
            id={head}
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto"
          >
            <path d="M0,0 L10,5 L0,10 z" fill="currentColor" />
          </marker>
        </defs>
        {participants.map((p) => (
          <g key={p.id} class="participant">
            <rect x={lanes.x(p.id) - 55} y={4} width={110} height={24} rx={4} />
            <text x={lanes.x(p.id)} y={21} text-anchor="middle">
              {p.name}
            </text>
            <line x1={lanes.x(p.id)} y1={28} x2={lanes.x(p.id)} y2={height} />
          </g>
        ))}
        {lines.map((line, i) =>
          line.kind === 'note' ? (
            <Note key={i} line={line} y={TOP + i * ROW + 12} lanes={lanes} />
          ) : (
            <Arrow key={i} line={line} y={TOP + i * ROW + 12} lanes={lanes} head={head} />
          ),
        )}
      </svg>
    </figure>
  );
}

function Note({ line, y, lanes }: { line: Extract<DiagramLine, { kind: 'note' }>; y: number; lanes: Lanes }) {
  const xs = line.over.map(lanes.x);
  const left = Math.min(...xs) - 60;
  const right = Math.max(...xs) + 60;
  return (
    <g class="note">
      <rect x={left} y={y - 14} width={right - left} height={20} rx={3} />
      <text x={(left + right) / 2} y={y} text-anchor="middle">
        {line.text}
      </text>
    </g>
  );
}

/** A call, an answer or a lost answer; a retry (`attempt n`) is marked. Labelled for tests and screen readers. */
function Arrow(props: {
  line: Exclude<DiagramLine, { kind: 'note' }>;
  y: number;
  lanes: Lanes;
  head: string;
}) {
  const { line, y, lanes, head } = props;
  const [x1, x2] = [lanes.x(line.from), lanes.x(line.to)];
  const [from, to] = [lanes.name(line.from), lanes.name(line.to)];
  const retry = /\(attempt \d+\)/.test(line.text);
  return (
    <g
      class={`arrow ${line.kind}${retry ? ' retry' : ''}`}
      data-from={from}
      data-to={to}
      data-kind={line.kind}
      aria-label={`${from} to ${to}: ${line.text}`}
    >
      <title>{`${from} → ${to}: ${line.text}`}</title>
      <line
        x1={x1}
        y1={y + 6}
        x2={x2}
        y2={y + 6}
        marker-end={line.kind === 'lost' ? undefined : `url(#${head})`}
      />
      {line.kind === 'lost' && (
        <text class="cross" x={x2} y={y + 11} text-anchor="middle">
          ✕
        </text>
      )}
      <text x={(x1 + x2) / 2} y={y} text-anchor="middle">
        {line.text}
      </text>
    </g>
  );
}
