/**
 * Runs a CLI's `main` and sets the exit code it returns; an unexpected error is printed (stack first) with `prefix`
 * and exits 1. `process.exitCode`, not `process.exit`, so open handles close and output is flushed.
 */
export function runCli(main: () => Promise<number>, prefix = ''): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(
        `${prefix}${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}

/**
 * A command's whole life: its options from the command line (`parse` throws a message for the user: printed with
 * `usage`, exit 2; `'help'`: the usage, exit 0), then `run` with a signal the first Ctrl-C aborts (the run stops its
 * clients, then its stack), exiting with the code `run` returns.
 */
export function runCommand<T>(
  usage: string,
  parse: (argv: string[]) => T | 'help',
  run: (options: T, signal: AbortSignal) => Promise<number>,
): void {
  runCli(async () => {
    let options: T | 'help';
    try {
      options = parse(process.argv.slice(2));
    } catch (error) {
      console.error(`${(error as Error).message}\n${usage}`);
      return 2;
    }
    if (options === 'help') {
      console.log(usage);
      return 0;
    }
    const controller = new AbortController();
    process.once('SIGINT', () => {
      console.error('interrupted: stopping the clients, then the stack');
      controller.abort();
    });
    return run(options, controller.signal);
  });
}
