import { describe, expect, it } from '@jest/globals';
import { parseDiagram } from '../../web/src/parse-diagram.js';

describe('parseDiagram', () => {
  it('reads participants, calls, answers, lost answers and notes as the engine writes them', () => {
    const { participants, lines } = parseDiagram(
      [
        'sequenceDiagram',
        '  participant O as Orders',
        '  participant P as Payments',
        '  Note over O,P: each charge held 1000 ms',
        '  O->>P: POST /v1/payments, key …4f009fc2',
        '  P--xO: answer lost (drop fault: connection reset after the handler ran)',
        '  O->>P: POST /v1/payments, key …4f009fc2 (attempt 2)',
        '  P-->>O: 201 replayed',
        '  something Mermaid knows but the engine never writes',
      ].join('\n'),
    );
    expect(participants).toEqual([
      { id: 'O', name: 'Orders' },
      { id: 'P', name: 'Payments' },
    ]);
    expect(lines).toEqual([
      { kind: 'note', over: ['O', 'P'], text: 'each charge held 1000 ms' },
      { kind: 'call', from: 'O', to: 'P', text: 'POST /v1/payments, key …4f009fc2' },
      {
        kind: 'lost',
        from: 'P',
        to: 'O',
        text: 'answer lost (drop fault: connection reset after the handler ran)',
      },
      { kind: 'call', from: 'O', to: 'P', text: 'POST /v1/payments, key …4f009fc2 (attempt 2)' },
      { kind: 'answer', from: 'P', to: 'O', text: '201 replayed' },
    ]);
  });
});
