import { ServiceError, type ProblemExceptionFilterOptions } from '@retry-safe/app-shell/http';

/** Stable codes of the console's own errors; the shell's filter turns each into one problem answer. */
export const ConsoleErrorCode = {
  UnknownScenario: 'unknown_scenario',
  UnknownRun: 'unknown_run',
  RunInProgress: 'run_in_progress',
  StackNotReady: 'stack_not_ready',
  HostNotAllowed: 'host_not_allowed',
} as const;
/** One of {@link ConsoleErrorCode}'s values. */
export type ConsoleErrorCode = (typeof ConsoleErrorCode)[keyof typeof ConsoleErrorCode];

/** An error of the console's API, with its code. */
export class ConsoleError extends ServiceError<ConsoleErrorCode> {
  constructor(
    readonly code: ConsoleErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** What each code answers: the page shows the problem's `detail` as the reason of the failed step. */
export const CONSOLE_PROBLEMS: ProblemExceptionFilterOptions = {
  serviceName: 'The console',
  codes: {
    [ConsoleErrorCode.UnknownScenario]: { status: 404, title: 'No such scenario' },
    [ConsoleErrorCode.UnknownRun]: { status: 404, title: 'No such run' },
    // One run at a time: the scenarios reset the one stack they share.
    [ConsoleErrorCode.RunInProgress]: { status: 409, title: 'A run is in progress' },
    [ConsoleErrorCode.StackNotReady]: {
      status: 503,
      title: 'The stack is not running',
      headers: { 'Retry-After': '1' },
    },
    // 421, not 403: nothing is wrong with who asks, the request names a site this server does not answer for.
    [ConsoleErrorCode.HostNotAllowed]: { status: 421, title: 'Misdirected request' },
  },
};
