import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import type { Services } from '../composition/index.js';

/**
 * The OpenAPI document, from an app that is built but never listens and has
 * no store: building the routes only names the services, calling none. The
 * same bytes every run (routes in registration order, the version from
 * package.json), so a generator reading it (the SDK's types) is reproducible.
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), services: {} as Services });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}
