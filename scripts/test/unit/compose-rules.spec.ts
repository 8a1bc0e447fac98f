import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkCompose, composeBuilds } from '../../docker/compose-rules.js';
import { deployableApps } from '../../docker/repository.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const COMPOSE = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
const APPS = deployableApps(ROOT);

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'check-compose-'));
  mkdirSync(join(scratch, 'ops'));
  writeFileSync(join(scratch, 'ops', 'Dockerfile'), readFileSync(join(ROOT, 'ops', 'Dockerfile')));
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** The problems of docker-compose.yml with `edit` applied (the edit must change it). */
function problemsWith(edit: (text: string) => string): string[] {
  const text = edit(COMPOSE);
  expect(text).not.toBe(COMPOSE);
  writeFileSync(join(scratch, 'docker-compose.yml'), text);
  return checkCompose(scratch, APPS);
}

describe('docker-compose.yml', () => {
  it('builds every app from ops/Dockerfile with its APP and PORT', () => {
    expect(composeBuilds(ROOT).filter((build) => build.file === 'docker-compose.yml')).toEqual(
      [
        ['provider-sim', '3003'],
        ['payments', '3002'],
        ['orders', '3001'],
        ['gateway', '3000'],
        ['invoice-worker', '3004'],
      ].map(([APP, PORT]) => ({
        file: 'docker-compose.yml',
        dockerfile: 'ops/Dockerfile',
        args: { APP, PORT },
      })),
    );
    expect(checkCompose(ROOT, APPS)).toEqual([]);
  });

  it('refuses an APP that is no app, and then an app that nothing builds', () => {
    expect(problemsWith((t) => t.replace('APP: orders,', 'APP: order,'))).toEqual([
      'docker-compose.yml: APP order is not an app (gateway, invoice-worker, orders, payments, provider-sim)',
      'no compose service builds orders',
    ]);
  });

  it('refuses a build without APP, and a dockerfile that does not exist', () => {
    expect(
      problemsWith((t) =>
        t
          .replace("args: { APP: gateway, PORT: '3000' }", "args: { PORT: '3000' }")
          .replace(
            'dockerfile: ops/Dockerfile, args: { APP: payments',
            'dockerfile: apps/payments/Dockerfile, args: { APP: payments',
          ),
      ),
    ).toEqual([
      'docker-compose.yml: dockerfile apps/payments/Dockerfile does not exist',
      'docker-compose.yml: ops/Dockerfile needs args: { APP: <app> }',
      'no compose service builds gateway, payments',
    ]);
  });
});
