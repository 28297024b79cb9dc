/**
 * `npm run openapi [FILE]`: prints the OpenAPI document of /v1 as JSON (the
 * same bytes every run), or writes it to FILE. The SDK's type generator reads it.
 */
import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../src/openapi/document.js';

const json = `${JSON.stringify(await openApiDocument(), null, 2)}\n`;
const file = process.argv[2];
if (file) writeFileSync(file, json);
else process.stdout.write(json);
