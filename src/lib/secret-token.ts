import { hash, randomBytes } from 'node:crypto';

/**
 * How a secret handed to a client is kept: only its SHA-256 (hex), so that
 * the store holds nothing that opens anything. The tokens are random (256
 * bits for sessions and setup links, as many for API keys), so a plain hash
 * is enough; a password-style slow hash would only slow every request.
 */
export function secretHash(secret: string): string {
  // The one-shot form: every API request hashes its key, and a Hash object costs about as much again.
  return hash('sha256', secret);
}

/** secretHash as bytes rather than hex: for a constant-time comparison with a hash already decoded. */
export function secretHashBytes(secret: string): Buffer {
  // Not hash(…, 'buffer'): on Node 20 that output took about twice as long as hex and a decode (1.3–1.9 µs against 0.9).
  return Buffer.from(hash('sha256', secret), 'hex');
}

/** 256 random bits, URL-safe: a session, CSRF or setup-link token. */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}
