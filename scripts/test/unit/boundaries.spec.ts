import { describe, it } from '@jest/globals';
import { RuleTester } from 'eslint';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';
import plugin from '../../lint/boundaries.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const at = (path: string) => join(ROOT, path);

RuleTester.describe = describe;
RuleTester.it = it;
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser, sourceType: 'module' } });

/** One invalid case: `code` in `file` is refused with a message containing `says`. */
const refused = (file: string, code: string, says: string) => ({
  filename: at(file),
  code,
  errors: [{ message: new RegExp(says.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) }],
});

tester.run('retry-safe/boundaries', plugin.rules.boundaries, {
  valid: [
    { filename: at('apps/gateway/src/app.module.ts'), code: "import { X } from './config/x.js';" },
    {
      filename: at('apps/console/src/main.ts'),
      code: "import { startDemoStack } from '@retry-safe/scenarios';",
    },
    { filename: at('apps/console/web/src/app.tsx'), code: "import { useState } from 'preact/hooks';" },
    {
      filename: at('apps/console/web/src/api.ts'),
      code: "import type { RunView } from '../../src/runs/console-api.js';",
    },
    {
      filename: at('apps/orders/src/main.ts'),
      code: "import { HttpClient } from '@retry-safe/http-client';",
    },
    {
      filename: at('packages/idempotency/src/coordinator.ts'),
      code: "import type { IdempotencyStore } from './store.js';",
    },
    {
      filename: at('packages/idempotency/src/redis/redis-store.ts'),
      code: "import type { Redis } from 'ioredis';",
    },
    {
      filename: at('packages/idempotency/src/postgres/kysely.ts'),
      code: "import { Kysely, PostgresDialect } from 'kysely';",
    },
    {
      filename: at('packages/idempotency/src/redis/scripts.ts'),
      code: "import { IdempotencyStoreError } from '../errors.js';",
    },
    {
      filename: at('packages/idempotency/src/nest/idempotency.module.ts'),
      code: "import { Module } from '@nestjs/common';",
    },
    { filename: at('packages/idempotency/src/nest/index.ts'), code: "export * from '../coordinator.js';" },
    { filename: at('packages/idempotency/test/unit/x.spec.ts'), code: "import { Redis } from 'ioredis';" },
    {
      filename: at('apps/provider-sim/src/app.module.ts'),
      code: "import { FaultInjectionModule } from '@retry-safe/fault-injection';",
    },
    {
      filename: at('apps/provider-sim/test/unit/x.spec.ts'),
      code: "import { startRedis } from '@retry-safe/testing';",
    },
    {
      filename: at('apps/provider-sim/src/charges/charges.controller.ts'),
      code: "import { ChainHeader } from '@retry-safe/contracts/http';",
    },
    {
      filename: at('apps/provider-sim/src/common/request-parsing.ts'),
      code: "import { parseIdempotencyKeyHeader } from '@retry-safe/idempotency';",
    },
    {
      filename: at('e2e/keys/keys.e2e-spec.ts'),
      code: "import { startStack } from '@retry-safe/scenarios';",
    },
    { filename: at('scenarios/src/cli/demo.ts'), code: "import { startRedis } from '@retry-safe/testing';" },
    {
      filename: at('apps/orders/src/payments/payments.module.ts'),
      code: "import { ReadThenWriteApply } from '../demonstrations/read-then-write-apply.service.js';",
    },
    {
      filename: at('apps/orders/src/demonstrations/record-in-redis.service.ts'),
      code: "import { REDIS_RECORDS_COORDINATOR } from './record-in-redis.module.js';",
    },
    {
      filename: at('apps/orders/src/demonstrations/read-then-write-apply.service.ts'),
      code: "import { OrdersRepository } from '../orders/orders.repository.js';",
    },
    {
      filename: at('apps/orders/test/integration/x.spec.ts'),
      code: "import { RecordInRedis } from '../../src/demonstrations/record-in-redis.service.js';",
    },
  ],
  invalid: [
    refused(
      'packages/http-client/src/x.ts',
      "import '@retry-safe/gateway';",
      'nothing imports an app (apps/gateway)',
    ),
    refused(
      'packages/testing/src/x.ts',
      "export * from '../../../apps/orders/src/app.module.js';",
      'nothing imports an app (apps/orders)',
    ),
    refused(
      'apps/gateway/src/x.ts',
      "import '../../orders/src/main.js';",
      'nothing imports an app (apps/orders)',
    ),
    refused(
      'apps/orders/src/x.ts',
      "const m = await import('@retry-safe/payments');",
      'nothing imports an app (apps/payments)',
    ),
    refused(
      'scenarios/src/x.ts',
      "import type { AppModule } from '@retry-safe/orders';",
      'nothing imports an app (apps/orders)',
    ),
    refused(
      'packages/testing/src/x.ts',
      "import { SCENARIOS } from '@retry-safe/scenarios';",
      'packages sit below scenarios',
    ),
    refused(
      'packages/idempotency/src/coordinator.ts',
      "import type { Redis } from 'ioredis';",
      'imports no driver or framework (ioredis)',
    ),
    refused(
      'packages/idempotency/src/store.ts',
      "import pg from 'pg';",
      'imports no driver or framework (pg)',
    ),
    refused(
      'packages/idempotency/src/errors.ts',
      "import { HttpException } from '@nestjs/common';",
      'imports no driver or framework (@nestjs/common)',
    ),
    refused(
      'packages/idempotency/src/index.ts',
      "export { RedisIdempotencyStore } from './redis/redis-store.js';",
      'does not import its adapters',
    ),
    refused(
      'packages/idempotency/src/redis/redis-store.ts',
      "import pg from 'pg';",
      'src/redis imports its own driver or framework only, not pg',
    ),
    refused(
      'packages/idempotency/src/nest/idempotency.module.ts',
      "import type { Redis } from 'ioredis';",
      'src/nest imports its own driver or framework only, not ioredis',
    ),
    refused(
      'packages/idempotency/src/postgres/postgres-store.ts',
      "import { Injectable } from '@nestjs/common';",
      'src/postgres imports its own driver or framework only, not @nestjs/common',
    ),
    refused(
      'packages/idempotency/src/nest/idempotency.module.ts',
      "import { RedisIdempotencyStore } from '../redis/redis-store.js';",
      'src/nest builds on the core, not on src/redis',
    ),
    refused(
      'packages/idempotency/src/postgres/index.ts',
      "export * from '../redis/index.js';",
      'src/postgres builds on the core, not on src/redis',
    ),
    refused(
      'packages/fault-injection/src/x.ts',
      "import { IdempotencyCoordinator } from '@retry-safe/idempotency';",
      'fault injection and idempotency',
    ),
    refused(
      'packages/idempotency/src/x.ts',
      "import '../../fault-injection/src/index.js';",
      'fault injection and idempotency',
    ),
    refused(
      'apps/provider-sim/src/x.ts',
      "import { INVOICE_JOB } from '@retry-safe/contracts';",
      'not @retry-safe/contracts',
    ),
    refused(
      'apps/provider-sim/src/x.ts',
      "import { INVOICE_JOB_SCHEMA } from '@retry-safe/contracts/jobs';",
      'not @retry-safe/contracts/jobs',
    ),
    refused(
      'apps/provider-sim/src/x.ts',
      "import '../../../packages/http-client/src/index.js';",
      'not @retry-safe/http-client',
    ),
    refused(
      'apps/console/src/x.ts',
      "import { IdempotencyCoordinator } from '@retry-safe/idempotency';",
      'the console reads what the services publish',
    ),
    refused('apps/console/web/src/x.ts', "import { readFile } from 'node:fs';", 'runs in a browser'),
    refused(
      'apps/console/web/src/x.ts',
      "import { RunsService } from '../../src/runs/runs.service.js';",
      "the console's page imports only its own files",
    ),
    refused(
      'apps/console/web/src/x.ts',
      "import { send } from '@retry-safe/scenarios';",
      'imports only its own files',
    ),
    refused(
      'apps/orders/src/payments/order-payments.service.ts',
      "import { ReadThenWriteApply } from '../demonstrations/read-then-write-apply.service.js';",
      'apps/orders/src/demonstrations/ is bound by the app',
    ),
    refused(
      'apps/orders/src/orders/orders.service.ts',
      "export type { RecordInRedis } from '../demonstrations/record-in-redis.service.js';",
      "bound by the app's modules only (*.module.ts)",
    ),
    refused(
      'apps/payments/src/payments/payments.service.ts',
      "const demo = await import('../demonstrations/unprotected-charge.js');",
      'apps/payments/src/demonstrations/ is bound by the app',
    ),
  ],
});
