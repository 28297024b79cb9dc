import { createSecretKey, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { ConfigError } from './config-error.js';

/** Settings whose values a schema type cannot check alone, read by config.ts; the secret key's form is also the key file's. */

/**
 * MAILROOM_SECRET_KEY: 32 bytes as 64 hex digits or as base64 (standard or
 * URL-safe, padded or not), e.g. `openssl rand -base64 32`. The value is
 * never echoed.
 */
export function parseSecretKey(value: string | undefined): KeyObject | undefined {
  if (value === undefined) return undefined;
  const key = secretKeyFromText(value);
  if (!key) throw new ConfigError('Invalid configuration: MAILROOM_SECRET_KEY must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)');
  return key;
}

/** A secret key written as MAILROOM_SECRET_KEY is (also the key file's form, secrets/key-file.ts); undefined if it is not one. */
export function secretKeyFromText(value: string): KeyObject | undefined {
  const text = value.trim();
  let bytes: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(text)) bytes = Buffer.from(text, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) bytes = Buffer.from(text, 'base64');
  return bytes?.length === 32 ? createSecretKey(bytes) : undefined;
}

/** Accepts `1.2.3.4`, `1.2.3.4:5353`, `::1` and `[::1]:5353`, comma-separated. */
export function parseDnsServers(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(',').map((entry) => {
    const server = entry.trim();
    const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([^:]+)(?::(\d+))?$/.exec(server);
    const ip = match ? match[1]! : server;
    const port = match?.[2];
    const portOk = port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
    if (isIP(ip) === 0 || !portOk) {
      throw new ConfigError(
        `Invalid configuration: DNS_SERVERS must be a comma-separated list of ip or ip:port entries (got ${JSON.stringify(server)})`,
      );
    }
    return server;
  });
}

/** A comma-separated list, its entries trimmed and the empty ones dropped; unset: none. */
export function parseList(value: string | undefined): string[] {
  return (value ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
}

const DURATION_UNITS_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `90s`, `30m`, `48h`, `2d` (the schema has checked the form) in milliseconds. */
export function parseDuration(value: string): number {
  const unit = value.slice(-1) as keyof typeof DURATION_UNITS_MS;
  return Number(value.slice(0, -1)) * DURATION_UNITS_MS[unit];
}
