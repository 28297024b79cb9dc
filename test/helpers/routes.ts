import type { FastifyInstance } from 'fastify';

/** Every route the app knows, as [method, path] (`/v1/domains/:id`), read from Fastify's own route tree. */
export function routesOf(app: FastifyInstance): [string, string][] {
  const routes: [string, string][] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^(.*?)[├└]── (\S+) \(([^)]+)\)$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const path = stack.join('').replace(/^\/+/, '/');
    for (const method of match[3]!.split(', ')) routes.push([method, path]);
  }
  return routes;
}

