/**
 * The files of the compose profile `observability` (ops/prometheus, ops/grafana): promtool accepts the alert rules
 * and prometheus.yml (and refuses a broken rule, so the check is real); Prometheus scrapes every app on its metrics
 * port; Grafana's dashboards use the provisioned data source; docs/operations.md names every alert. Whether the
 * metrics they name exist is checked against a running stack (e2e/observability).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { composeBuilds } from '../../docker/compose-rules.js';
import { deployableApps } from '../../docker/repository.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const PROMETHEUS = join(ROOT, 'ops', 'prometheus');
const GRAFANA = join(ROOT, 'ops', 'grafana');
const RULES = join(PROMETHEUS, 'rules', 'retry-safe.rules.yml');
const run = promisify(execFile);

/** `promtool <args>`: its exit code and output. promtool comes with Debian's `prometheus` (.ci/run installs it). */
async function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('promtool', args);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    if (failed.code === 'ENOENT')
      throw new Error('promtool not found: apt-get install -y prometheus', { cause: error });
    return { code: Number(failed.code), output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

const alertNames = (text: string): string[] => [...text.matchAll(/^\s+- alert: (\S+)$/gm)].map((m) => m[1]!);

describe('the alert rules', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'rules-'));
  });
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('pass promtool check rules, every alert counted', async () => {
    const alerts = alertNames(readFileSync(RULES, 'utf8'));
    expect(alerts.length).toBeGreaterThanOrEqual(12);

    const { code, output } = await promtool('check', 'rules', RULES);

    expect(output).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(code).toBe(0);
  });

  it('a rule promtool refuses fails the check (a misspelt function)', async () => {
    const broken = join(scratch, 'broken.rules.yml');
    writeFileSync(broken, readFileSync(RULES, 'utf8').replace('sum(rate(', 'sum(rat('));

    const { code, output } = await promtool('check', 'rules', broken);

    expect(code).toBe(1);
    expect(output).toMatch(/unknown function with name "rat"/);
  });

  it('are the ones docs/operations.md describes, every one named there', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
    const missing = alertNames(readFileSync(RULES, 'utf8')).filter((alert) => !docs.includes(`\`${alert}\``));
    expect(missing).toEqual([]);
  });
});

describe('prometheus.yml', () => {
  const config = readFileSync(join(PROMETHEUS, 'prometheus.yml'), 'utf8');

  it('passes promtool check config and loads the rule file', async () => {
    const { code, output } = await promtool('check', 'config', join(PROMETHEUS, 'prometheus.yml'));

    expect(output).toContain('SUCCESS: 1 rule files found');
    expect(output).toContain('retry-safe.rules.yml');
    expect(code).toBe(0);
  });

  it("scrapes every app, each as its own job, on its metrics port (the gateway's is never its public one)", () => {
    const jobs = [
      ...config.matchAll(/- job_name: (\S+)\s+static_configs:\s+- targets: \['([^:']+):(\d+)'\]/g),
    ].map((m) => ({ job: m[1]!, host: m[2]!, port: m[3]! }));
    const apps = deployableApps(ROOT);
    expect(jobs.map((j) => j.host).sort()).toEqual([...apps].sort());
    const portOf = new Map(
      composeBuilds(ROOT)
        .filter((build) => build.file === 'docker-compose.yml')
        .map((build) => [build.args['APP'], build.args['PORT']]),
    );
    for (const { job, host, port } of jobs) {
      expect(job).toBe(host);
      if (host === 'gateway') expect(port).not.toBe(portOf.get(host));
      else expect({ host, port }).toEqual({ host, port: portOf.get(host) });
    }
  });
});

describe('Grafana provisioning', () => {
  const datasources = readFileSync(join(GRAFANA, 'provisioning', 'datasources', 'datasources.yml'), 'utf8');
  const uids = [...datasources.matchAll(/^\s+uid: (\S+)$/gm)].map((m) => m[1]!);

  interface Panel {
    readonly type: string;
    readonly title: string;
    readonly datasource?: { readonly uid: string };
    readonly targets?: readonly { readonly expr: string; readonly datasource?: { readonly uid: string } }[];
  }

  it('every dashboard panel queries a provisioned data source', () => {
    const files = readdirSync(join(GRAFANA, 'dashboards')).filter((file) => file.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const dashboard = JSON.parse(readFileSync(join(GRAFANA, 'dashboards', file), 'utf8')) as {
        uid: string;
        panels: Panel[];
      };
      expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
      const queried = dashboard.panels.filter((panel) => panel.type !== 'row');
      expect(queried.length).toBeGreaterThan(0);
      for (const panel of queried) {
        expect({ panel: panel.title, uid: uids.includes(panel.datasource?.uid ?? '') }).toEqual({
          panel: panel.title,
          uid: true,
        });
        expect(panel.targets?.length ?? 0).toBeGreaterThan(0);
      }
    }
  });

  it('the compose profile mounts the folders the provisioning reads', () => {
    const compose = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
    const provider = readFileSync(join(GRAFANA, 'provisioning', 'dashboards', 'dashboards.yml'), 'utf8');
    const path = /path: (\S+)/.exec(provider)?.[1];
    expect(compose).toContain(`./ops/grafana/dashboards:${path}:ro`);
    expect(compose).toContain('./ops/grafana/provisioning:/etc/grafana/provisioning:ro');
    expect(compose).toContain('./ops/prometheus:/etc/prometheus:ro');
  });
});
