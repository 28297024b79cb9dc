import type { Config } from '../config.js';
import type { Store } from '../db/store.js';
import type { Provider } from './provider.js';
import { createSandboxProvider } from './sandbox-provider.js';
import { createSmtpProvider } from './smtp-provider.js';

/** The provider MAILROOM_PROVIDER names (the config schema has checked that its settings are there). */
export function createProvider(config: Pick<Config, 'provider' | 'smtpUrl'>, store: Store): Provider {
  switch (config.provider) {
    case 'sandbox':
      return createSandboxProvider(store);
    case 'smtp':
      return createSmtpProvider(config.smtpUrl!);
  }
}
