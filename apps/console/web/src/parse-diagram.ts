/**
 * Reads the engine's sequence diagram (Mermaid's sequenceDiagram syntax, the subset diagram.ts writes): its
 * participants, calls (`->>`), answers (`-->>`), lost answers (`--x`) and notes.
 */

/** One parsed line of the diagram. */
export type DiagramLine =
  | {
      readonly kind: 'call' | 'answer' | 'lost';
      readonly from: string;
      readonly to: string;
      readonly text: string;
    }
  | { readonly kind: 'note'; readonly over: readonly string[]; readonly text: string };

export interface ParsedDiagram {
  readonly participants: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  readonly lines: readonly DiagramLine[];
}

const ARROW = /^(\w+)(--x|-->>|->>)(\w+):\s?(.*)$/;
const NOTE = /^Note over ([\w,]+):\s?(.*)$/;
const PARTICIPANT = /^participant (\w+) as (.+)$/;

/** The participants and lines of a Mermaid sequence diagram; lines it does not know are left out. */
export function parseDiagram(source: string): ParsedDiagram {
  const participants: Array<{ id: string; name: string }> = [];
  const lines: DiagramLine[] = [];
  for (const raw of source.split('\n')) {
    const line = raw.trim();
    const participant = PARTICIPANT.exec(line);
    if (participant !== null) {
      participants.push({ id: participant[1] as string, name: participant[2] as string });
      continue;
    }
    const arrow = ARROW.exec(line);
    if (arrow !== null) {
      const kind = arrow[2] === '->>' ? 'call' : arrow[2] === '-->>' ? 'answer' : 'lost';
      lines.push({ kind, from: arrow[1] as string, to: arrow[3] as string, text: arrow[4] as string });
      continue;
    }
    const note = NOTE.exec(line);
    if (note !== null)
      lines.push({ kind: 'note', over: (note[1] as string).split(','), text: note[2] as string });
  }
  return { participants, lines };
}
