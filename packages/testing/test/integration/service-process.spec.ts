import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../src/free-port.js';
import { startServiceProcess } from '../../src/service-process.js';
import { waitFor } from '../../src/wait.js';

describe('startServiceProcess', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'service-process-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a process that exits before it is healthy fails the start at once, with what it printed', async () => {
    // What a service does when its port was taken between the probe and its listen.
    const entry = join(dir, 'exits.mjs');
    await writeFile(
      entry,
      "console.error('Error: listen EADDRINUSE: address already in use'); process.exit(1);\n",
    );
    const started = Date.now();

    const start = startServiceProcess({ name: 'exits', entry, port: await freePort(), telemetry: false });

    await expect(start).rejects.toThrow(/exits exited with 1 before it was healthy:\n.*EADDRINUSE/);
    // Not the 45 s start timeout: the exit ended the wait.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('waitFor', () => {
  it('gives up at once when its signal aborts, with the reason it aborted with', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('what we waited for can no longer happen')), 50);

    const waiting = waitFor('something that never comes', () => Promise.reject(new Error('not yet')), {
      timeoutMs: 30_000,
      intervalMs: 20,
      signal: controller.signal,
    });

    await expect(waiting).rejects.toThrow('what we waited for can no longer happen');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
