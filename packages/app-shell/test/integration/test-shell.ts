import { Module, type Type } from '@nestjs/common';
import { AppShellModule } from '../../src/shell/app-shell.module.js';
import type { AppShellOptions } from '../../src/shell/app-shell.options.js';

/**
 * The root module of a test service named `service`: the shell with the least an app declares (no config, no
 * scenario routes, one problem service name, minted request ids), `options` on top, then `feature`.
 */
export function testShellModule(
  service: string,
  feature: Type,
  options: Partial<AppShellOptions<Record<string, never>>> = {},
): Type {
  @Module({
    imports: [
      AppShellModule.forRoot({
        config: {},
        configToken: 'CONFIG',
        faultsEnabled: false,
        problems: { serviceName: 'The test service' },
        requestContext: { service, requestId: 'mint' },
        ...options,
      }),
      feature,
    ],
  })
  class TestModule {}
  return TestModule;
}
