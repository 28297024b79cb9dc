import { EnvSchema } from '../config.js';

/** A setting's default, as the configuration schema gives it: the help cannot drift from what a start uses. */
function defaultOf(name: keyof typeof EnvSchema.properties): string {
  return String((EnvSchema.properties[name] as { default?: unknown }).default);
}

/** What `serve --help` adds under its description: every port it opens, the variables that set it and their defaults. */
export function serveListenersHelp(): string {
  const host = defaultOf('HOST');
  const rows = [
    ['What', 'Variables', 'Default'],
    ['API and dashboard', 'HOST:PORT', `${host}:${defaultOf('PORT')}`],
    ['SMTP submission', 'HOST:SUBMISSION_PORT', `${host}:${defaultOf('SUBMISSION_PORT')}`],
    ['inbound SMTP (bounces)', 'INBOUND_SMTP_HOST:INBOUND_SMTP_PORT', `HOST:${defaultOf('INBOUND_SMTP_PORT')}`],
    ['Prometheus metrics', 'HOST:METRICS_PORT', `none (${defaultOf('METRICS_PORT')})`],
  ];
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const table = rows.map(([what, variables, fallback]) => `  ${what!.padEnd(widths[0]!)}  ${variables!.padEnd(widths[1]!)}  ${fallback}`).join('\n');
  return [
    '',
    'It listens on:',
    table,
    'A port of 0 opens nothing there (PORT=0: any free port).',
    '',
    'The delivery worker runs beside them (WORKER_ENABLED=false: the API alone, with',
    '`mailroom worker` elsewhere). While no one can sign in, it logs a one-time link',
    'to create the first admin account (printed plainly too at a terminal).',
  ].join('\n');
}
