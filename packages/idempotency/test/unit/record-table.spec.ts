import { describe, expect, it } from '@jest/globals';
import {
  callerCall,
  recordIn,
  ReferenceModel,
  type ModelCall,
  type ModelTimes,
} from '../../model/reference.js';
import {
  CALLS,
  checkTransitions,
  loadTransitions,
  situations,
  STORES,
  transitionFor,
  type CallKind,
} from '../../model/transitions.js';

// The table itself (model/transitions.json), before any store or model reads it.
const table = loadTransitions();
const times: ModelTimes = { lease: 3, retain: 5, ttl: 5 };

function modelIn(store: (typeof STORES)[number], s: ReturnType<typeof situations>[number]) {
  const model = new ReferenceModel(store, times, table);
  const { record, abandoned } = recordIn(s, times);
  model.record = record;
  model.maxGranted = record?.fence ?? 0;
  return { model, abandoned };
}

describe('the transition table', () => {
  it('decides every call in every situation on both stores, and every row decides one', () => {
    // loadTransitions checks this; a table with a row that no situation reaches is refused.
    const anything = {
      id: 'claim/anything',
      call: 'claim',
      reply: 'inProgress',
      then: 'unchanged',
      why: '',
    } as const;
    expect(() => checkTransitions([anything, ...table])).toThrow(
      /rows no situation reaches: claim\/absent, /,
    );
    for (const call of CALLS) {
      for (const s of situations()) expect(() => transitionFor(table, call, s, 'postgres')).not.toThrow();
    }
  });

  it('refuses a value outside its vocabulary', () => {
    const broken = table.map((t) => (t.id === 'renew/otherwise' ? { ...t, reply: 'maybe' } : t));
    expect(() => checkTransitions(broken as typeof table)).toThrow(/renew\/otherwise reply: "maybe"/);
  });

  // Resend safety in the table: a call run twice by the same owner with nothing in between answers the same and
  // leaves the record as the first run did. storeIfAbsent has no owner (its answer is not read: an unprotected
  // run returns its own value either way), so its resend answers "a record exists".
  const owned: CallKind[] = CALLS.filter((c) => c !== 'storeIfAbsent');
  it.each(STORES.flatMap((store) => owned.map((call) => [store, call] as const)))(
    '%s: %s run twice answers the same in every situation',
    (store, call) => {
      for (const s of situations()) {
        const { model, abandoned } = modelIn(store, s);
        const c: ModelCall = callerCall(call, abandoned);
        const first = model.expected(c);
        model.step(c, first);
        const after = model.record;
        // The resend carries the same arguments; its store forgot the abandoned owner only once it answered.
        expect({ situation: s, answer: model.expected(c) }).toEqual({ situation: s, answer: first });
        model.step(c, model.expected(c));
        expect({ situation: s, record: model.record }).toEqual({ situation: s, record: after });
      }
    },
  );

  it('a released or expired key is granted again, with a token above every earlier one', () => {
    for (const store of STORES) {
      const { model } = modelIn(store, { record: 'released', owner: 'other', fingerprint: 'other' });
      const claim = callerCall('claim', undefined);
      model.step(claim, { reply: 'acquired', fence: 8 });
      expect(() => model.step(callerCall('release', undefined), { reply: 'true' })).not.toThrow();
      model.advance(times.retain);
      expect(model.situation(claim)).toEqual({ record: 'absent' });
      expect(() => model.step(claim, { reply: 'acquired', fence: 8 })).toThrow(
        /above every earlier one \(8\)/,
      );
    }
  });
});
