import { StandardSchemaValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from './payments-errors.js';

/**
 * Validates every `@Body({ schema })` and `@Param(name, { schema })` with its Standard Schema (zod here), and turns
 * the issues into one {@link ValidationFailedError} (400 `validation_failed`), one line per issue.
 */
export function createValidationPipe(): StandardSchemaValidationPipe {
  return new StandardSchemaValidationPipe({
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
