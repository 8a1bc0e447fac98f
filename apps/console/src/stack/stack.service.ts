import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { startDemoStack, type DemoStack } from '@retry-safe/scenarios';
import type { CollectedSpan } from '@retry-safe/testing';
import { StackState, type StatusView } from '../runs/console-api.js';
import { ConsoleError, ConsoleErrorCode } from '../runs/console-errors.js';

/**
 * The console's stack, as `pnpm demo` starts it (private Redis behind a gate, private PostgreSQL, the five services
 * with faults on, on loopback), plus the services' spans collected here. Started once the console listens, so the
 * page can show the start's progress; stopped when the console shuts down.
 */
@Injectable()
export class StackService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('StackService');
  private readonly startedAt = Date.now();
  private readonly lines: string[] = [];
  private state: StackState = StackState.Starting;
  private error: string | undefined;
  private starting: Promise<DemoStack> | undefined;
  private demo: DemoStack | undefined;

  onApplicationBootstrap(): void {
    this.starting = startDemoStack({ log: (line) => this.log(line), traces: true });
    this.starting.then(
      (demo) => {
        this.demo = demo;
        this.state = StackState.Up;
        this.log(`stack up, gateway at ${demo.stack.urls.gateway}`);
      },
      (error: unknown) => {
        this.state = StackState.Failed;
        this.error = error instanceof Error ? error.message : String(error);
        this.logger.error({ msg: 'the stack did not start', error: this.error });
      },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    // Still starting: let it finish, then stop it, so no service is left behind.
    const demo = await this.starting?.catch(() => undefined);
    await demo?.close();
  }

  /** `GET /api/status`. */
  status(): StatusView {
    return {
      stack: this.state,
      elapsedMs: Date.now() - this.startedAt,
      log: [...this.lines],
      ...(this.error === undefined ? {} : { error: this.error }),
    };
  }

  /** The running stack; a {@link ConsoleError} while it starts or after it failed. */
  running(): DemoStack {
    if (this.demo === undefined) {
      throw new ConsoleError(
        ConsoleErrorCode.StackNotReady,
        this.error === undefined ? 'the stack is still starting' : `the stack did not start: ${this.error}`,
      );
    }
    return this.demo;
  }

  /** The spans the services exported since {@link clearSpans}. */
  spans(): CollectedSpan[] {
    return this.demo?.stack.traces?.spans() ?? [];
  }

  clearSpans(): void {
    this.demo?.stack.traces?.clear();
  }

  private log(line: string): void {
    this.lines.push(line);
    this.logger.log({ msg: line });
  }
}
