import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setImmediate as tick } from 'node:timers/promises';
import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { currentLogFields, withLogContext } from '../../src/logging/log-context.js';
import { DeferredSampler, DeferredSpanProcessor, tracingStarted } from '../../src/otel/trace-export.js';

// One process per test file (Jest's module registry): the first block runs as a service without the telemetry
// hook, the second as one the hook started (the hook's state is set once and never cleared, as in a service).
describe('the log context without the telemetry hook', () => {
  it('carries the fields across awaits, and only inside', async () => {
    const seen = await withLogContext({ requestId: 'r-1' }, async () => {
      await tick();
      return currentLogFields();
    });
    expect(seen).toEqual({ requestId: 'r-1' });
    expect(currentLogFields()).toBeUndefined();
  });
});

describe('the log context once the telemetry hook started tracing', () => {
  const manager = new AsyncLocalStorageContextManager();

  beforeAll(() => {
    context.setGlobalContextManager(manager.enable());
    tracingStarted(new DeferredSpanProcessor(), new DeferredSampler());
  });

  afterAll(() => {
    context.disable();
  });

  it('carries the fields across awaits, nested units of work see their own', async () => {
    const seen = await withLogContext({ requestId: 'outer' }, async () => {
      await tick();
      const inner = await withLogContext({ requestId: 'inner', jobId: 'j-1' }, async () => {
        await tick();
        return currentLogFields();
      });
      return [currentLogFields(), inner];
    });
    expect(seen).toEqual([{ requestId: 'outer' }, { requestId: 'inner', jobId: 'j-1' }]);
    expect(currentLogFields()).toBeUndefined();
  });

  it('keeps the fields in the trace context: a listener bound to it has them, a fresh trace has none', async () => {
    // The access line's `close` listener is bound to the request's trace context (request-context.ts); one
    // AsyncLocalStorage for both means binding the one binds the other.
    const [bound, fresh] = withLogContext({ requestId: 'r-2' }, () => [
      context.bind(context.active(), () => currentLogFields()),
      context.with(ROOT_CONTEXT, () => currentLogFields()),
    ]);
    await tick();
    expect(bound()).toEqual({ requestId: 'r-2' });
    expect(fresh).toBeUndefined();
  });
});
