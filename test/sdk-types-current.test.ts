/**
 * The SDK's types (sdk/src/openapi.ts) are generated from the OpenAPI
 * document; this fails when the committed file is not what the document
 * generates today, so a route schema cannot change without the SDK's types.
 * Fix: `npm run sdk:generate`, and commit sdk/src/openapi.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

describe('the SDK\'s generated types', () => {
  it('are what the current OpenAPI document generates (else run npm run sdk:generate)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-sdk-types-'));
    try {
      const fresh = join(dir, 'openapi.ts');
      execFileSync(process.execPath, ['sdk/scripts/generate.mjs', '--output', fresh], { stdio: ['ignore', 'ignore', 'inherit'] });
      const committed = readFileSync('sdk/src/openapi.ts', 'utf8');
      assert.ok(committed.includes('"/v1/send/logs"'), 'the committed types cover the API');
      assert.equal(readFileSync(fresh, 'utf8'), committed, 'sdk/src/openapi.ts is stale: run npm run sdk:generate and commit it');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
