import { describe, expect, it } from '@jest/globals';
import { DEMO_SECRETS } from '@retry-safe/contracts';
import { deploymentProblems, type DeploymentView } from '../../src/config/deployment-checks.js';
import { DEFAULT_SERVER_LIMITS } from '../../src/server-limits.js';

/** A service's view with FAULTS_ENABLED on loopback and `env` as its raw environment. */
function view(env: Record<string, string>, rest: Partial<DeploymentView> = {}): DeploymentView {
  return {
    env,
    parsed: {},
    host: '127.0.0.1',
    faultsEnabled: true,
    adminToken: undefined,
    serverLimits: DEFAULT_SERVER_LIMITS,
    ...rest,
  };
}

const names = (problems: ReadonlyArray<readonly [string, string]>) => problems.map(([name]) => name);

describe('deploymentProblems', () => {
  it.each([
    ['NODE_ENV=production', { NODE_ENV: 'production' }],
    ['NODE_ENV=production and RETRY_SAFE_DEMO=1', { NODE_ENV: 'production', RETRY_SAFE_DEMO: '1' }],
    ['NODE_ENV=production and RETRY_SAFE_DEMO=true', { NODE_ENV: 'production', RETRY_SAFE_DEMO: 'true' }],
  ])('refuses FAULTS_ENABLED=true with %s: a declared demo does not lift it', (_label, env) => {
    expect(names(deploymentProblems(view(env)))).toContain('FAULTS_ENABLED');
  });

  it('lets RETRY_SAFE_DEMO=1 lift the demo secrets only', () => {
    const secrets = { parsed: { INTERNAL_TOKEN: DEMO_SECRETS.internalToken }, faultsEnabled: false };
    expect(names(deploymentProblems(view({ NODE_ENV: 'production' }, secrets)))).toEqual(['INTERNAL_TOKEN']);
    const demo = { NODE_ENV: 'production', RETRY_SAFE_DEMO: '1' };
    expect(deploymentProblems(view(demo, secrets))).toEqual([]);
  });

  it("refuses the scenarios override's demo ADMIN_TOKEN in production", () => {
    const problems = deploymentProblems(
      view(
        { NODE_ENV: 'production' },
        { faultsEnabled: false, parsed: { ADMIN_TOKEN: DEMO_SECRETS.adminToken } },
      ),
    );
    expect(problems).toEqual([['ADMIN_TOKEN', expect.stringContaining('is a published demo value')]]);
  });

  it('judges the admin listener by ADMIN_HOST: a public HOST with a loopback admin listener needs no token', () => {
    const admin = { host: '0.0.0.0', adminListener: { host: '127.0.0.1', port: 9401 } };
    expect(deploymentProblems(view({}, admin))).toEqual([]);
    const open = { host: '127.0.0.1', adminListener: { host: '0.0.0.0', port: 9401 } };
    expect(deploymentProblems(view({}, open))).toEqual([
      ['ADMIN_TOKEN', expect.stringContaining('ADMIN_HOST (0.0.0.0) is not loopback')],
    ]);
    expect(deploymentProblems(view({}, { ...open, adminToken: 'x'.repeat(32) }))).toEqual([]);
  });

  it('refuses ADMIN_PORT equal to METRICS_PORT', () => {
    const same = { adminListener: { host: '127.0.0.1', port: 9400 }, metricsPort: 9400 };
    expect(deploymentProblems(view({}, same))).toEqual([
      ['ADMIN_PORT', 'must differ from METRICS_PORT (9400)'],
    ]);
  });

  it('refuses ADMIN_PORT equal to the app port', () => {
    const same = {
      adminListener: { host: '127.0.0.1', port: 3000 },
      port: { variable: 'GATEWAY_PORT', value: 3000 },
    };
    expect(deploymentProblems(view({}, same))).toEqual([
      ['ADMIN_PORT', 'must differ from GATEWAY_PORT (3000)'],
    ]);
  });
});
