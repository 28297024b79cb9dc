import type { Command } from 'commander';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { startServer } from '../server.js';
import { createLogger, startWorker } from '../composition/index.js';
import { mailHostnameProblem } from '../domains/index.js';
import { stopOnSignal } from '../lib/stop-on-signal.js';
import { serveListenersHelp } from '../cli/serve-help.js';
import { setupLinkAtTerminal } from '../cli/setup-link.js';
import { useExistingStore, useOrCreateStore } from './store.js';

/** What an operator should see first in the log: where the data is, and a host name DNS cannot use. */
export function logStartNotes(log: Logger, config: Config): void {
  log.info({ dataDir: config.dataDir }, `data directory ${config.dataDir}`);
  const hostnameProblem = mailHostnameProblem(config.mailHostname);
  if (hostnameProblem) log.warn({ mailHostname: config.mailHostname }, hostnameProblem);
}

/** `mailroom serve` and `mailroom worker`: the long-running processes. */
export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('Run the HTTP API and the dashboard, SMTP submission, the inbound receiver and the delivery worker (the store is made, or migrated, first)')
    .addHelpText('after', serveListenersHelp())
    .action(async () => {
      const config = await useOrCreateStore();
      logStartNotes(createLogger(config), config);
      // Listening before starting: Fastify resolves listen() a turn of the event loop after the socket
      // is open, and a SIGTERM in that gap would end the process without a clean stop.
      const starting = startServer(config, { setupLink: setupLinkAtTerminal(config) });
      stopOnSignal(async (signal) => {
        const app = await starting;
        app.log.info({ signal }, 'shutting down');
        return app.close();
      }, config.shutdownGraceMs);
      await starting;
    });

  program
    .command('worker')
    .description('Run the delivery worker alone, on the store serve or migrate made (for API and workers on separate machines)')
    .action(async () => {
      // A worker does not make the store: one that did would poll a store no API sends into.
      const config = await useExistingStore();
      logStartNotes(createLogger(config), config);
      const starting = startWorker(config);
      stopOnSignal(async (signal) => {
        const worker = await starting;
        worker.log.info({ signal }, 'shutting down');
        return worker.stop();
      }, config.shutdownGraceMs);
      await starting;
    });
}
