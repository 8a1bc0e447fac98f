/** A {@link ScenarioTarget} on a stack started by `startStack` (e2e suites, the demo). */
import type { Stack } from '../stack/stack.js';
import { httpTarget, type RedisControl, type ScenarioTarget } from './target.js';

/** The stack's services over HTTP; Redis control from the stack's own Redis, unless `redisControl` is given. */
export function stackTarget(stack: Stack, redisControl?: RedisControl): ScenarioTarget {
  const control = stack.redis.control;
  const fromStack: RedisControl | undefined =
    control === undefined
      ? undefined
      : {
          description: 'its private Redis stopped, then started again',
          stop: control.stop,
          start: control.start,
        };
  const chosen = redisControl ?? fromStack;
  return httpTarget(stack.urls, chosen === undefined ? {} : { redisControl: chosen });
}
