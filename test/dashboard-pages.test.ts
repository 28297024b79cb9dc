/**
 * The server answers every page the UI can show (dashboard/ui.ts), so that any address can be reloaded or
 * shared; and, without a build of the UI, says how to make one instead of failing obscurely.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { dashboardUi, UI_PAGES } from '../src/dashboard/ui.js';

describe("the dashboard's pages", () => {
  it('names every path the UI navigates to (App and Shell) among the pages the server answers', () => {
    const web = join(import.meta.dirname, '..', 'web', 'src', 'app');
    const paths = new Set<string>();
    for (const file of ['App.tsx', 'Shell.tsx']) {
      const source = readFileSync(join(web, file), 'utf8');
      for (const match of source.matchAll(/(?:path: |path === |navigate\()'(\/[a-z-]*)'/g)) paths.add(match[1]!);
    }
    assert.ok(paths.size >= 5, `found the UI's paths: ${[...paths].join(', ')}`);
    for (const path of paths) assert.ok((UI_PAGES as readonly string[]).includes(path), `${path} is in UI_PAGES`);
  });

  it('answers 503 with what to run when the UI has not been built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'mailroom-no-ui-'));
    const app = Fastify();
    try {
      await app.register(dashboardUi(empty));
      const res = await app.inject({ method: 'GET', url: '/settings' });
      assert.deepEqual([res.statusCode, res.body], [503, 'The dashboard is not built: run npm run build:web\n']);
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/);
    } finally {
      await app.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
