/**
 * Nothing demo reaches production, and no admin route is open: with `NODE_ENV=production` a service refuses to
 * start, naming the variable, when a secret is unset or one of the published demo values (`DEMO_SECRETS`), or
 * when `FAULTS_ENABLED=true` (demo or not); `RETRY_SAFE_DEMO=1` declares a demo, which starts on the demo secrets
 * and says so loudly. The gateway's public listener never serves `/__*` (its admin listener, on loopback, does);
 * off loopback `FAULTS_ENABLED=true` needs `ADMIN_TOKEN`, and then every `/__*` route demands it, as provider-sim's
 * ledger resets do whenever it is off loopback.
 */
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { networkInterfaces } from 'node:os';
import { connect } from 'node:net';
import { DEMO_SECRETS } from '@retry-safe/contracts';
import { DEMO_API_TOKENS, repoRoot } from '@retry-safe/scenarios';
import { freePort, startServiceProcess, TEST_INTERNAL_TOKEN } from '@retry-safe/testing';

const entry = (app: string): string => join(repoRoot(), 'apps', app, 'dist', 'main.js');
const OWN_TOKENS = 'own-token-for-tenant-a-0123456789=a0000000-0000-4000-8000-00000000000a';
const ADMIN_TOKEN = 'admin-token-for-the-e2e-0123456789abcdef';
const OWN_REDIS = 'redis://:own-redis-password-0123@127.0.0.1:6399';

/** Runs `app` with exactly `env` (plus PATH) until it exits: its exit code and what it printed on stderr. */
function runToExit(
  app: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry(app)], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('production: a service refuses to start on a demo or missing secret, naming it', () => {
  it.each([
    [
      'gateway with the demo INTERNAL_TOKEN',
      'gateway',
      { INTERNAL_TOKEN: DEMO_SECRETS.internalToken, API_TOKENS: OWN_TOKENS },
      'INTERNAL_TOKEN: is a published demo value',
    ],
    [
      "gateway with the demo tenants' API_TOKENS",
      'gateway',
      { INTERNAL_TOKEN: TEST_INTERNAL_TOKEN, API_TOKENS: DEMO_API_TOKENS },
      'API_TOKENS: holds demo-token-tenant-a, demo-token-tenant-b, which is a published demo value',
    ],
    [
      'payments without REDIS_URL',
      'payments',
      { INTERNAL_TOKEN: TEST_INTERNAL_TOKEN },
      'REDIS_URL: is required with NODE_ENV=production',
    ],
    [
      "payments with the demo REDIS_URL's password",
      'payments',
      {
        INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
        REDIS_URL: `redis://:${DEMO_SECRETS.redisPassword}@127.0.0.1:6399`,
      },
      'REDIS_URL: carries a published demo password',
    ],
    [
      "orders with the demo DATABASE_URL's password",
      'orders',
      {
        INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
        REDIS_URL: OWN_REDIS,
        DATABASE_URL: `postgres://retry_safe:${DEMO_SECRETS.postgresPassword}@127.0.0.1:5432/retry_safe`,
      },
      'DATABASE_URL: carries a published demo password',
    ],
    [
      'provider-sim with FAULTS_ENABLED=true',
      'provider-sim',
      { FAULTS_ENABLED: 'true' },
      'FAULTS_ENABLED: must be false with NODE_ENV=production',
    ],
    [
      'provider-sim with FAULTS_ENABLED=true, declared a demo (RETRY_SAFE_DEMO=1)',
      'provider-sim',
      { FAULTS_ENABLED: 'true', RETRY_SAFE_DEMO: '1' },
      'FAULTS_ENABLED: must be false with NODE_ENV=production',
    ],
    [
      "provider-sim with the scenarios override's demo ADMIN_TOKEN",
      'provider-sim',
      { ADMIN_TOKEN: DEMO_SECRETS.adminToken },
      'ADMIN_TOKEN: is a published demo value',
    ],
  ])('%s: exit 1, the variable named, no secret echoed', async (_label, app, env, message) => {
    const { code, stderr } = await runToExit(app, { NODE_ENV: 'production', ...env });
    expect(code).toBe(1);
    expect(stderr).toContain(message);
    for (const secret of [
      DEMO_SECRETS.internalToken,
      DEMO_SECRETS.redisPassword,
      DEMO_SECRETS.postgresPassword,
      DEMO_SECRETS.adminToken,
    ]) {
      expect(stderr).not.toContain(secret);
    }
  });

  it('RETRY_SAFE_DEMO=1 declares a demo: the demo secrets start, and the first lines say DEMO loudly', async () => {
    const port = await freePort();
    const gateway = await startServiceProcess({
      name: 'gateway-demo',
      entry: entry('gateway'),
      port,
      env: {
        NODE_ENV: 'production',
        RETRY_SAFE_DEMO: '1',
        GATEWAY_PORT: String(port),
        METRICS_PORT: '0',
        INTERNAL_TOKEN: DEMO_SECRETS.internalToken,
        API_TOKENS: DEMO_API_TOKENS,
      },
      healthPath: '/health/live',
    });
    try {
      expect(gateway.output()).toContain('RETRY_SAFE_DEMO=1: THIS IS A DEMO');
    } finally {
      await gateway.kill();
    }
  });
});

/** An IPv4 address of this host that is not loopback, if it has one. */
function externalAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((info) => info !== undefined && info.family === 'IPv4' && !info.internal)?.address;
}

/** True when a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** What every gateway of these tests needs besides its ports. */
const GATEWAY_ENV = {
  INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
  API_TOKENS: DEMO_API_TOKENS,
  METRICS_PORT: '0',
} as const;

/** A gateway with FAULTS_ENABLED=true on `port`, `env` on top. */
function startGateway(port: number, env: Record<string, string>) {
  return startServiceProcess({
    name: 'gateway-admin',
    entry: entry('gateway'),
    port,
    env: { ...GATEWAY_ENV, GATEWAY_PORT: String(port), FAULTS_ENABLED: 'true', ...env },
    healthPath: '/health/live',
  });
}

describe('admin routes are never public: the gateway serves /__* on its admin listener only; off loopback they need ADMIN_TOKEN', () => {
  it('provider-sim on 0.0.0.0 with FAULTS_ENABLED=true and no ADMIN_TOKEN refuses to start', async () => {
    const { code, stderr } = await runToExit('provider-sim', { HOST: '0.0.0.0', FAULTS_ENABLED: 'true' });
    expect(code).toBe(1);
    expect(stderr).toContain(
      'ADMIN_TOKEN: is required when FAULTS_ENABLED=true and HOST (0.0.0.0) is not loopback',
    );
  });

  it('gateway on 0.0.0.0: its public listener answers 404 for /__*, its loopback admin listener (ADMIN_PORT) 200', async () => {
    const [port, adminPort] = [await freePort(), await freePort()];
    const gateway = await startGateway(port, { HOST: '0.0.0.0', ADMIN_PORT: String(adminPort) });
    try {
      const address = externalAddress();
      if (address !== undefined) {
        expect(await accepts(address, port)).toBe(true);
        expect(await accepts(address, adminPort)).toBe(false);
      }
      const url = `http://127.0.0.1:${port}`;
      const tenant = { authorization: `Bearer ${DEMO_SECRETS.tenants.a.token}` };
      const onPublic = await Promise.all([
        fetch(`${url}/__requests`, { headers: tenant }),
        fetch(`${url}/__config`),
        fetch(`${url}/__faults`),
        fetch(`${url}/__config`, {
          method: 'PUT',
          headers: { ...tenant, 'content-type': 'application/json' },
          body: '{"keyMode":"regenerate"}',
        }),
      ]);
      expect(onPublic.map((res) => [res.status, res.headers.get('content-type')])).toEqual(
        onPublic.map(() => [404, expect.stringMatching(/^application\/problem\+json/)]),
      );
      const admin = `http://127.0.0.1:${adminPort}`;
      const onAdmin = await Promise.all(
        ['/__requests', '/__config', '/__faults'].map((path) => fetch(`${admin}${path}`)),
      );
      expect(onAdmin.map((res) => res.status)).toEqual([200, 200, 200]);
      const config = (await (await fetch(`${admin}/__config`)).json()) as { settings: { keyMode: string } };
      expect(config.settings.keyMode).toBe('propagate');
    } finally {
      await gateway.kill();
    }
  });

  it('gateway with its admin listener off loopback (ADMIN_HOST=0.0.0.0): refused without ADMIN_TOKEN; with it, /__* 401 without the token, 200 with it', async () => {
    const refused = await runToExit('gateway', {
      ...GATEWAY_ENV,
      ADMIN_HOST: '0.0.0.0',
      ADMIN_PORT: String(await freePort()),
      FAULTS_ENABLED: 'true',
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'ADMIN_TOKEN: is required when FAULTS_ENABLED=true and ADMIN_HOST (0.0.0.0) is not loopback',
    );
    const [port, adminPort] = [await freePort(), await freePort()];
    const gateway = await startGateway(port, {
      ADMIN_HOST: '0.0.0.0',
      ADMIN_PORT: String(adminPort),
      ADMIN_TOKEN,
    });
    try {
      const admin = `http://127.0.0.1:${adminPort}`;
      const tenant = { authorization: `Bearer ${DEMO_SECRETS.tenants.a.token}` };
      const token = { authorization: `Bearer ${ADMIN_TOKEN}` };
      expect([
        (await fetch(`${admin}/__requests`)).status,
        (await fetch(`${admin}/__faults`, { headers: tenant })).status,
        (await fetch(`${admin}/__config`, { headers: token })).status,
        (await fetch(`http://127.0.0.1:${port}/__config`, { headers: token })).status,
      ]).toEqual([401, 401, 200, 404]);
    } finally {
      await gateway.kill();
    }
  });

  it("provider-sim's ledger reset is behind the same rule: DELETE /v1/charges 401 without ADMIN_TOKEN", async () => {
    const port = await freePort();
    const provider = await startServiceProcess({
      name: 'provider-admin',
      entry: entry('provider-sim'),
      port,
      env: { HOST: '0.0.0.0', PROVIDER_PORT: String(port), FAULTS_ENABLED: 'true', ADMIN_TOKEN },
      healthPath: '/health/live',
    });
    try {
      const url = `http://127.0.0.1:${port}`;
      const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
      expect([
        (await fetch(`${url}/v1/charges`, { method: 'DELETE' })).status,
        (await fetch(`${url}/v1/emails`, { method: 'DELETE' })).status,
        (await fetch(`${url}/__requests`, { method: 'DELETE' })).status,
        (await fetch(`${url}/v1/charges`)).status,
        (await fetch(`${url}/v1/charges`, { method: 'DELETE', headers: admin })).status,
      ]).toEqual([401, 401, 401, 200, 204]);
    } finally {
      await provider.kill();
    }
  });

  it('provider-sim off loopback without ADMIN_TOKEN (faults off, as in docker-compose.yml) refuses every ledger reset', async () => {
    const port = await freePort();
    const provider = await startServiceProcess({
      name: 'provider-open',
      entry: entry('provider-sim'),
      port,
      env: { HOST: '0.0.0.0', PROVIDER_PORT: String(port) },
      healthPath: '/health/live',
    });
    try {
      const url = `http://127.0.0.1:${port}`;
      expect([
        (await fetch(`${url}/v1/charges`, { method: 'DELETE' })).status,
        (await fetch(`${url}/v1/emails`, { method: 'DELETE' })).status,
        (await fetch(`${url}/v1/charges`)).status,
      ]).toEqual([401, 401, 200]);
    } finally {
      await provider.kill();
    }
  });
});
