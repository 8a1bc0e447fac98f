/**
 * `docker compose up`, as a new user runs it: docker-compose.yml alone, the images the tier built from
 * ops/Dockerfile. Every container turns healthy, only the gateway is published (on 127.0.0.1), the apps run
 * read-only as a non-root user, the README's walkthrough answers as written, a SIGKILLed app process is started
 * again by the engine, and Redis' AOF and PostgreSQL's volume keep what was acknowledged across a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, send } from '@retry-safe/scenarios';
import { waitFor } from '@retry-safe/testing';
import {
  APP_SERVICES,
  COMPOSE_SERVICES,
  appProcessScript,
  composeProject,
  type ComposeProject,
} from '../support/compose.js';
import { newKey } from '../support/client.js';
import { TENANT_A, newOrderId, payUntilAnswered } from '../support/compose-client.js';

const run = promisify(execFile);
const GATEWAY = 'http://127.0.0.1:3000';

/** The README's walkthrough: the bash block that starts with `G=http://127.0.0.1:3000`, as written. */
function readmeWalkthrough(): string {
  const readme = readFileSync(join(repoRoot(), 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```bash\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? '')
    .find((body) => body.startsWith(`G=${GATEWAY};`));
  if (block === undefined) throw new Error('README.md has no walkthrough block starting with G=...');
  return block;
}

/** The responses of `curl -si` output, in order: status, headers (lower-case names) and body. */
function curlResponses(
  output: string,
): Array<{ status: number; headers: Record<string, string>; body: string }> {
  return output
    .split(/(?=HTTP\/1\.1 \d{3} )/)
    .filter((part) => part.startsWith('HTTP/'))
    .map((part) => {
      const [head = '', body = ''] = part.split(/\r?\n\r?\n/, 2);
      const [statusLine = '', ...lines] = head.split(/\r?\n/);
      const headers = Object.fromEntries(
        lines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      return { status: Number(statusLine.split(' ')[1]), headers, body: body.trim() };
    });
}

describe('docker compose up: docker-compose.yml as a user starts it', () => {
  const project: ComposeProject = composeProject(['docker-compose.yml']);

  beforeAll(async () => {
    await project.up();
  }, 400_000);

  afterAll(async () => {
    await project.down();
  }, 200_000);

  it('starts every container healthy and publishes only the gateway, on 127.0.0.1:3000', async () => {
    const states = await Promise.all(
      COMPOSE_SERVICES.map(async (s) => [s, await project.inspect(s)] as const),
    );
    expect(states.map(([s, st]) => [s, st.status, st.health])).toEqual(
      COMPOSE_SERVICES.map((s) => [s, 'running', 'healthy']),
    );
    expect(Object.fromEntries(states.map(([s, st]) => [s, st.published]))).toEqual({
      redis: [],
      postgres: [],
      'provider-sim': [],
      payments: [],
      orders: [],
      gateway: ['3000/tcp -> 127.0.0.1:3000'],
      'invoice-worker': [],
    });
  });

  it.each(APP_SERVICES)('runs %s read-only as the non-root user node', async (service) => {
    const state = await project.inspect(service);
    expect([state.readOnly, state.user]).toEqual([true, 'node']);
    const app = JSON.parse(await project.nodeExec(service, appProcessScript())) as { uid: number };
    expect(app.uid).toBe(1000);
    // The image's files cannot be written; /tmp (a tmpfs) can.
    const writes = await project.nodeExec(
      service,
      `const fs = require('fs'); const w = (p) => { try { fs.writeFileSync(p, 'x'); return 'ok'; } catch (e) { return e.code; } };
       console.log(JSON.stringify([w('/app/probe'), w('/tmp/probe')]));`,
    );
    expect(JSON.parse(writes)).toEqual(['EROFS', 'ok']);
  });

  it("answers the README's walkthrough as written: 201, the replayed 201, 422, 400", async () => {
    const { stdout } = await run('bash', ['-c', readmeWalkthrough()], { timeout: 60_000 });
    const responses = curlResponses(stdout);
    expect(responses.map((r) => r.status)).toEqual([201, 201, 422, 400]);
    const [charge, replay, reused, missing] = responses;
    expect(replay?.headers['idempotent-replayed']).toBe('true');
    expect(charge?.headers['idempotent-replayed']).toBeUndefined();
    expect(replay?.body).toBe(charge?.body);
    expect([reused?.headers['content-type'], JSON.parse(reused?.body ?? '{}').code]).toEqual([
      'application/problem+json; charset=utf-8',
      'idempotency_key_reused',
    ]);
    expect(JSON.parse(missing?.body ?? '{}').code).toBe('idempotency_key_missing');
  });

  it('starts orders again after a SIGKILL of its process inside the container, and it heals', async () => {
    const before = await project.inspect('orders');
    // Once, the exec failed with nothing said (one run in five here): asked again until the kill is sent. A kill
    // that was sent and then reported a failure only restarts orders once more, which the check below allows.
    await waitFor(
      'the SIGKILL sent to orders',
      () => project.nodeExec('orders', appProcessScript('SIGKILL')),
      {
        timeoutMs: 20_000,
        intervalMs: 1_000,
      },
    );
    await waitFor(
      'orders restarted by the engine and healthy',
      async () => {
        const state = await project.inspect('orders');
        if (state.restartCount <= before.restartCount || state.health !== 'healthy') {
          throw new Error(
            `orders: restarts ${state.restartCount}, ${state.status}/${state.health ?? 'none'}`,
          );
        }
      },
      { timeoutMs: 120_000, intervalMs: 1_000 },
    );
    // A container running again reports ExitCode 0: the restart shows as a healthy orders answering a payment.
    const paid = await payUntilAnswered(GATEWAY, await newOrderId(GATEWAY), newKey('after-kill'));
    expect(paid.status).toBe(201);
  }, 180_000);

  it('keeps every acknowledged record and order across `restart redis postgres`: the replay is the same Charge', async () => {
    const orderId = await newOrderId(GATEWAY);
    const key = newKey('durable');
    const first = await payUntilAnswered(GATEWAY, orderId, key);
    expect([first.status, first.headers['idempotent-replayed']]).toEqual([201, undefined]);

    await project.compose(['restart', 'redis', 'postgres'], 120_000);
    await project.healthy();

    const replay = await payUntilAnswered(GATEWAY, orderId, key);
    expect([replay.status, replay.headers['idempotent-replayed'], replay.text]).toEqual([
      201,
      'true',
      first.text,
    ]);
    const order = await send(`${GATEWAY}/v1/orders/${orderId}`, { headers: TENANT_A });
    expect([order.status, (order.body as { id: string; paidAmount: number }).paidAmount]).toEqual([
      200, 1999,
    ]);
  }, 300_000);
});
