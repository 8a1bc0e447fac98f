import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config/console-config.js';

describe('the console config', () => {
  it('listens on 127.0.0.1:3100 by default', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ host: '127.0.0.1', port: 3100 });
  });

  it('takes CONSOLE_PORT and a loopback HOST', () => {
    expect(loadConfig({ CONSOLE_PORT: '4000', HOST: '::1' })).toMatchObject({ host: '::1', port: 4000 });
  });

  it('refuses a HOST off loopback: the stack it drives has faults on', () => {
    expect(() => loadConfig({ HOST: '0.0.0.0' })).toThrow(/HOST.*loopback/s);
  });

  it('refuses a port that is not one', () => {
    expect(() => loadConfig({ CONSOLE_PORT: 'eighty' })).toThrow(/CONSOLE_PORT/);
  });
});
