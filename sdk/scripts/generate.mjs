/**
 * `npm run generate` (or `npm run sdk:generate` at the root): writes
 * src/openapi.ts, the API's types, from Mailroom's OpenAPI document with
 * openapi-typescript. The document comes from the repository's own
 * `scripts/openapi.ts` (what GET /v1/openapi.json answers), so no server is
 * needed. test/sdk-types-current.test.ts runs this into a temporary file and
 * fails when the committed src/openapi.ts differs: regenerate after changing
 * a route's schema.
 *
 *   node scripts/generate.mjs [--input openapi.json] [--output src/openapi.ts]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';

const sdk = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(sdk, '..');
const { values } = parseArgs({ options: { input: { type: 'string' }, output: { type: 'string' } } });

const json = values.input
  ? readFileSync(values.input, 'utf8')
  : execFileSync(process.execPath, ['--import', 'tsx', 'scripts/openapi.ts'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const document = JSON.parse(json);

const header = `/**
 * Generated from Mailroom's OpenAPI document (GET /v1/openapi.json) by
 * \`npm run sdk:generate\` (sdk/scripts/generate.mjs, openapi-typescript). Do not edit:
 * change the route schemas and regenerate. src/types.ts names what the SDK uses.
 */

`;
const output = values.output ?? resolve(sdk, 'src/openapi.ts');
writeFileSync(output, header + astToString(await openapiTS(document)));
