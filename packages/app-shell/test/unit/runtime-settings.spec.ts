import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { z } from 'zod';
import { ValidationFailedError } from '../../src/http/errors.js';
import { RuntimeSettings } from '../../src/admin/runtime-settings.js';

Logger.overrideLogger(false);

interface Settings {
  readonly mode: 'safe' | 'unsafe';
  readonly leaseMs: number;
}

function settings() {
  const replaced: Array<{ settings: Settings; overrides: Partial<Settings> }> = [];
  const runtime = new RuntimeSettings<Settings>({
    schema: z.strictObject({
      mode: z.enum(['safe', 'unsafe']).optional(),
      leaseMs: z.int().min(10).optional(),
    }),
    initial: { mode: 'safe', leaseMs: 30_000 },
    onReplace: (current, overrides) => replaced.push({ settings: current, overrides }),
  });
  return { runtime, replaced };
}

describe('RuntimeSettings', () => {
  it('starts with the initial settings; PUT replaces every override, DELETE goes back', () => {
    const { runtime, replaced } = settings();
    expect(runtime.current).toEqual({ mode: 'safe', leaseMs: 30_000 });

    runtime.replace({ mode: 'unsafe', leaseMs: 100 });
    expect(runtime.replace({ leaseMs: 50 })).toEqual({
      settings: { mode: 'safe', leaseMs: 50 },
      overrides: { leaseMs: 50 },
    });
    expect(replaced.map((r) => r.settings)).toEqual([
      { mode: 'unsafe', leaseMs: 100 },
      { mode: 'safe', leaseMs: 50 },
    ]);

    runtime.reset();
    expect(runtime.snapshot()).toEqual({ settings: { mode: 'safe', leaseMs: 30_000 }, overrides: {} });
  });

  it.each([
    ['an unknown field', { ttlMs: 5 }, /^\(body\): Unrecognized key: "ttlMs"/],
    ['a value out of range', { leaseMs: 5 }, /^leaseMs: /],
    ['no body', undefined, /^\(body\): /],
  ])('refuses %s with ValidationFailedError and changes nothing', (_label, body, issue) => {
    const { runtime, replaced } = settings();
    runtime.replace({ mode: 'unsafe' });

    let error: unknown;
    try {
      runtime.replace(body);
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(ValidationFailedError);
    expect((error as ValidationFailedError).issues[0]).toMatch(issue);
    expect(runtime.snapshot()).toEqual({
      settings: { mode: 'unsafe', leaseMs: 30_000 },
      overrides: { mode: 'unsafe' },
    });
    expect(replaced).toHaveLength(1);
  });
});
