/**
 * `pnpm invoices:redrive --all | <jobId>...`: publishes dead invoice jobs again (see {@link redrive}). Reads the
 * worker's environment (REDIS_URL or REDIS_CLUSTER_NODES, BULLMQ_PREFIX), prints one JSON report, and exits 1
 * when an id was not on the dead-letter queue, 2 on bad usage or environment.
 */
import { createRedisConnection } from '@retry-safe/app-shell';
import { ConfigError } from '@retry-safe/app-shell/config';
import { Queue } from 'bullmq';
import { bullmqConnectionOptions, loadConfig, redisLocation } from '../config/app-config.js';
import { INVOICES_QUEUE } from '../invoices/invoice-job.js';
import { DEAD_LETTER_QUEUE, redrive } from './dead-letter.js';

const USAGE = 'usage: pnpm invoices:redrive --all | <jobId> [<jobId>...]';

async function main(args: readonly string[]): Promise<number> {
  const all = args.includes('--all');
  const ids = args.filter((arg) => arg !== '--all');
  if (all === ids.length > 0 || ids.some((id) => id.startsWith('-'))) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig(process.env);
  const connection = createRedisConnection(redisLocation(config), bullmqConnectionOptions(config));
  const options = { connection, prefix: config.worker.prefix };
  const deadLetters = new Queue(DEAD_LETTER_QUEUE, options);
  const invoices = new Queue(INVOICES_QUEUE, options);
  try {
    const report = await redrive(deadLetters, invoices, all ? undefined : ids);
    console.log(JSON.stringify(report));
    return report.notFound.length === 0 ? 0 : 1;
  } finally {
    await Promise.all([deadLetters.close(), invoices.close()]);
    await connection.quit().catch(() => connection.disconnect());
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exitCode = 2;
  },
);
