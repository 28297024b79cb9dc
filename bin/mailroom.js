#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx: no build step between a checkout and a running service.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
