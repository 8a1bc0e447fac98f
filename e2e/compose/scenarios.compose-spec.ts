/**
 * docker-compose.yml with docker-compose.scenarios.yml (fault injection on, its demo ADMIN_TOKEN, every port
 * published on 127.0.0.1, the gateway's /__* routes on its admin listener): `pnpm scenarios` against the containers prints every table exactly as `pnpm demo` does; a duplicate of a running
 * payment gets 409 with `Retry-After`; `docker compose stop` while a charge is inside the provider call lets it
 * finish (the drain) and the replay after `start` is the same Charge.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  SCENARIOS,
  expectedTable,
  httpTarget,
  markdownTable,
  repoRoot,
  type ScenarioTarget,
} from '@retry-safe/scenarios';
import { waitFor } from '@retry-safe/testing';
import { PUBLISHED_URLS, composeProject, type ComposeProject } from '../support/compose.js';
import { newKey } from '../support/client.js';
import { newOrderId, payOnce, payUntilAnswered } from '../support/compose-client.js';

const run = promisify(execFile);
const GATEWAY = PUBLISHED_URLS.gateway;
// Long enough for `docker compose stop` to reach the gateway while the charge is held, short enough for every
// hop's attempt timeout (5 s): the held charge still answers in time.
const STOP_HOLD_MS = 3_500;
const CHAIN = ['gateway', 'orders', 'payments'] as const;

/** Holds provider-sim's next charge for `ms` (a `delay` fault, once); `held` resolves once it fired. */
async function holdNextCharge(target: ScenarioTarget, ms: number): Promise<{ held: () => Promise<void> }> {
  await target.setFaults('provider', [
    { method: 'POST', path: '/v1/charges', at: 'before-handler', action: 'delay', ms, times: 1 },
  ]);
  return {
    held: () =>
      waitFor('a charge held at the provider', async () => {
        const fired = (await target.faults('provider')).rules[0]?.fired;
        if (fired !== 1) throw new Error(`the delay rule fired ${fired ?? 0} times`);
      }),
  };
}

/** The epoch milliseconds of the last JSON log line of `logs` whose msg is `msg`. */
function loggedAt(logs: string, msg: string): number | undefined {
  for (const line of logs.split('\n').reverse()) {
    const json = line.slice(line.indexOf('{'));
    if (!json.includes(`"msg":"${msg}"`)) continue;
    try {
      const time = (JSON.parse(json) as { time?: number | string }).time;
      if (time !== undefined) return typeof time === 'number' ? time : Date.parse(time);
    } catch {
      // not a JSON line
    }
  }
  return undefined;
}

describe('docker compose up with the scenarios override', () => {
  const project: ComposeProject = composeProject(['docker-compose.yml', 'docker-compose.scenarios.yml']);
  const target = httpTarget(PUBLISHED_URLS);

  beforeAll(async () => {
    await project.up();
    await target.healthy(60_000);
  }, 400_000);

  afterAll(async () => {
    await project.down();
  }, 200_000);

  it('pnpm scenarios against the containers prints every table as pnpm demo prints it', async () => {
    const env = {
      ...process.env,
      ADMIN_TOKEN: PUBLISHED_URLS.adminToken,
      REDIS_STOP_CMD: await project.commandLine(['stop', 'redis']),
      REDIS_START_CMD: await project.commandLine(['start', 'redis']),
    };
    const { stdout } = await run(
      'node',
      ['scenarios/dist/cli/scenarios.js', '--out', '/tmp/compose-tier-scenarios'],
      {
        cwd: repoRoot(),
        env,
        timeout: 1_200_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((error: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(
        `pnpm scenarios failed: ${error.message}\n${error.stdout ?? ''}\n${(error.stderr ?? '').slice(-4000)}`,
      );
    });
    const printed = SCENARIOS.map((scenario) => ({
      name: scenario.name,
      table: `${scenario.name}: ${scenario.title}\n${markdownTable(scenario.columns, expectedTable(scenario))}`,
    }));
    expect(printed.filter(({ table }) => !stdout.includes(table)).map(({ name }) => name)).toEqual([]);
    expect(stdout).not.toMatch(/not run here|MISMATCH|FAILED/);
  }, 1_300_000);

  it('answers a duplicate of a running payment with 409 payment_in_progress and Retry-After', async () => {
    await target.reset();
    const orderId = await newOrderId(GATEWAY);
    const key = newKey('in-progress');
    const { held } = await holdNextCharge(target, 2_500);
    const first = payOnce(GATEWAY, orderId, key);
    await held();
    const duplicate = await payOnce(GATEWAY, orderId, key);
    expect([duplicate.status, duplicate.body?.code, duplicate.headers['retry-after']]).toEqual([
      409,
      'payment_in_progress',
      '1',
    ]);
    expect((await first).status).toBe(201);
    expect((await target.charges()).charges).toHaveLength(1);
  });

  it('lets a charge finish when `docker compose stop` comes during it, and the replay after start is the same Charge', async () => {
    await target.reset();
    const orderId = await newOrderId(GATEWAY);
    const key = newKey('drain');
    const { held } = await holdNextCharge(target, STOP_HOLD_MS);
    const payment = payOnce(GATEWAY, orderId, key).then((res) => ({ res, at: Date.now() }));
    await held();
    const stopped = project.compose(['stop', ...CHAIN], 120_000);
    const { res, at } = await payment;
    await stopped;

    expect([res.status, res.body?.amount, res.headers['idempotent-replayed']]).toEqual([
      201,
      1999,
      undefined,
    ]);
    const { calls, charges } = await target.charges();
    expect([calls, charges.length]).toEqual([1, 1]);
    const gatewayLogs = await project.logs('gateway');
    // The stop reached the gateway while the charge was still running, and it drained rather than timed out.
    expect(loggedAt(gatewayLogs, 'draining')).toBeLessThan(at);
    expect(gatewayLogs).not.toContain('drain timed out');
    for (const service of CHAIN) {
      const state = await project.inspect(service);
      expect([service, state.status, state.exitCode]).toEqual([service, 'exited', 0]);
    }

    await project.compose(['start', ...CHAIN], 120_000);
    await project.healthy();
    const replay = await payUntilAnswered(GATEWAY, orderId, key);
    expect([replay.status, replay.headers['idempotent-replayed'], replay.text]).toEqual([
      201,
      'true',
      res.text,
    ]);
    expect((await target.charges()).charges).toHaveLength(1);
  }, 300_000);
});
