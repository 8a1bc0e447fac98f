// The entrypoint of the services under docker-compose.scenarios.yml: `node supervise.mjs <command> [args...]` runs
// the service as a child process and, when it dies on its own (a scenario's SIGKILL at a fault point), starts it
// again after 1 s, inside the same container, as `pnpm stack` does. The container keeps running, so its address
// stays and refuses connections while the service is down: callers see what they see under `pnpm demo`. Docker's
// own restart policy would take the address away with the container and bring it back after a delay that doubles
// with each crash, so what a scenario's first request got would depend on a race with the engine.
// SIGTERM and SIGINT go to the service (its drain), and the supervisor then exits with its exit code.
// Plain Node, no dependencies: it is copied into every image beside the app (ops/Dockerfile).
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { clearTimeout, setTimeout } from 'node:timers';

const RESTART_DELAY_MS = 1_000;
const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error('usage: node supervise.mjs <command> [args...]');
  process.exit(2);
}

let child;
let restart;
let stopping = false;

function log(level, msg, fields) {
  console.log(
    JSON.stringify({ level, time: new Date().toISOString(), context: 'supervise', msg, ...fields }),
  );
}

function start() {
  restart = undefined;
  child = spawn(command, args, { stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    child = undefined;
    const status = code ?? 128 + (constants.signals[signal] ?? 0);
    if (stopping) process.exit(status);
    log('warn', 'service exited, starting it again', { code, signal, restartInMs: RESTART_DELAY_MS });
    restart = setTimeout(start, RESTART_DELAY_MS);
  });
}

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    stopping = true;
    if (child === undefined) {
      clearTimeout(restart);
      process.exit(0);
    }
    child.kill(signal);
  });
}

start();
