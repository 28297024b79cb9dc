import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { connectRedis } from '../db/redis.js';
import type { Store } from '../db/store.js';
import type { Provider } from './provider.js';
import { createSandboxProvider } from './sandbox-provider.js';
import { redisSlots, storeSlots } from './send-rate.js';
import { createSesProvider, SES_SLOTS } from './ses-provider.js';
import { createSmtpProvider } from './smtp-provider.js';

/** The provider MAILROOM_PROVIDER names (the config schema has checked that its settings are there). */
export function createProvider(
  config: Pick<Config, 'provider' | 'smtpUrl' | 'ses' | 'redisUrl' | 'redisKeyPrefix'>,
  store: Store,
  logger: Pick<Logger, 'info' | 'warn'> = { info: () => undefined, warn: () => undefined },
): Provider {
  switch (config.provider) {
    case 'sandbox':
      return createSandboxProvider(store);
    case 'smtp':
      return createSmtpProvider(config.smtpUrl!);
    case 'ses': {
      // The rate is shared by every worker: in Redis when there is one, else in the store they share.
      const redisUrl = config.redisUrl;
      const slots = redisUrl ? redisSlots(() => connectRedis(redisUrl), `${config.redisKeyPrefix}send-slots:${SES_SLOTS}`) : storeSlots(store, SES_SLOTS);
      return createSesProvider({ settings: config.ses, store, slots, logger });
    }
  }
}
