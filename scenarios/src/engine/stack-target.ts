/** A {@link ScenarioTarget} on a stack started by `startStack` (e2e suites, the demo). */
import type { Stack } from '../stack/stack.js';
import { httpTarget, type RedisControl, type RestartControl, type ScenarioTarget } from './target.js';

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
  return httpTarget(stack.urls, {
    ...(chosen === undefined ? {} : { redisControl: chosen }),
    restartControl: processRestart(stack),
  });
}

/** Starts every process of a killed service again, on its port, with its settings (waits for its exit first). */
function processRestart(stack: Stack): RestartControl {
  return {
    description: 'the stack starts its process again',
    restart: async (service) => {
      for (const process of stack.processes(service)) {
        // Already gone after a `drop` at a fault point; this only waits for the exit to be seen.
        await process.kill('SIGKILL');
        await process.start();
      }
    },
  };
}
