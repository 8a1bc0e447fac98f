import { StandardSchemaValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from './errors.js';

/** The keys Nest's pipe deletes from a value before validating it (prototype pollution). */
const PROTOTYPE_KEYS = ['__proto__', 'prototype', 'constructor'] as const;

/**
 * Nest deletes `__proto__`, `prototype` and `constructor` keys before the schema sees the value, so a strict body
 * with one of them passed as if the key were not there (`{"amount":1,"currency":"EUR","constructor":1}` paid).
 * The schemas are strict: such a key is refused like any other unknown key, before Nest would strip it.
 */
class StrictKeysValidationPipe extends StandardSchemaValidationPipe {
  protected override stripProtoKeys(value: unknown): void {
    const found = findPrototypeKey(value);
    if (found !== undefined) {
      throw new ValidationFailedError([`${found.path || '(body)'}: Unrecognized key: "${found.key}"`]);
    }
    super.stripProtoKeys(value);
  }
}

/** The first own prototype key in `value` (at any depth) and where it is; iterative, as bodies can nest deeply. */
function findPrototypeKey(value: unknown): { key: string; path: string } | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  const visited = new WeakSet<object>();
  while (stack.length > 0) {
    const current = stack.pop() as { value: unknown; path: string };
    if (current.value === null || typeof current.value !== 'object' || visited.has(current.value)) continue;
    visited.add(current.value);
    const object = current.value as Record<string, unknown>;
    if (!Array.isArray(object)) {
      const key = PROTOTYPE_KEYS.find((name) => Object.hasOwn(object, name));
      if (key !== undefined) return { key, path: current.path };
    }
    for (const [name, child] of Object.entries(object)) {
      stack.push({ value: child, path: current.path ? `${current.path}.${name}` : name });
    }
  }
  return undefined;
}

/**
 * The app-wide pipe (`APP_PIPE`): validates every `@Body({ schema })` and `@Param(name, { schema })` with its Standard Schema (zod here), and turns
 * the issues into one {@link ValidationFailedError} (400 `validation_failed`), one line per issue. Keys named `__proto__`, `prototype` or
 * `constructor` are refused at any depth (400) rather than silently dropped.
 */
export function createValidationPipe(): StandardSchemaValidationPipe {
  return new StrictKeysValidationPipe({
    exceptionFactory: (issues) =>
      new ValidationFailedError(
        issues.map((issue) => {
          const path = (issue.path ?? [])
            .map((segment) => String(typeof segment === 'object' ? segment.key : segment))
            .join('.');
          return `${path || '(body)'}: ${issue.message}`;
        }),
      ),
  });
}
