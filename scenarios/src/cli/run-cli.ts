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
