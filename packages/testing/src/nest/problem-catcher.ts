import { Logger, type ExceptionFilter } from '@nestjs/common';
import { captureProblem, type SentProblem } from '../capture-problem.js';

/**
 * `filter.catch(error)` through {@link captureProblem}, for an exception filter's unit suite, with Nest's logger
 * off (the filter logs what it maps; the test output stays clean).
 */
export function problemCatcher(filter: ExceptionFilter): (error: unknown) => SentProblem {
  Logger.overrideLogger(false);
  return (error) => captureProblem(filter, error);
}
