import 'reflect-metadata';
import { bootstrap } from '@retry-safe/app-shell';
import { AppModule } from './app.module.js';
import { loadConfig } from './config/console-config.js';

bootstrap({
  loadConfig: () => loadConfig(process.env),
  module: (config) => AppModule.forRoot(config),
  listening: 'console listening',
  describe: (config) => ({ url: `http://${config.host}:${config.port}` }),
  configureServer: (server) => {
    // The one line a person looks for among the JSON logs.
    server.once('listening', () => {
      const address = server.address();
      if (address !== null && typeof address === 'object') {
        const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
        process.stderr.write(`\nconsole: open http://${host}:${address.port}\n\n`);
      }
    });
  },
});
