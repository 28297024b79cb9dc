import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { REPORT_READ_BYTES } from './read-limits.js';

/** A message as the receiver keeps it: what the parser reads of it, and what identifies it. */
export interface TakenReport {
  /** Its first bytes: as many as the parser reads, and one more (read-limits.ts cuts them as it would the whole). */
  head: Buffer;
  /** SHA-256 of all its bytes, hex: the same report twice is the same id. */
  id: string;
  bytes: number;
}

export type Intake = ({ tooBig: false } & TakenReport) | { tooBig: true; bytes: number };

/**
 * Reads a message from the DATA stream as it arrives, its size counted
 * chunk by chunk, and keeps no more of it than the parser reads: the rest
 * passes through the hash and is let go. Reports waiting for their parse hold
 * 128 KiB each (REPORT_READ_BYTES), whatever their size. Past `maxBytes` the rest is read and
 * dropped, and the message is too big.
 */
export function takeReport(stream: Readable, maxBytes: number): Promise<Intake> {
  return new Promise<Intake>((resolve, reject) => {
    const hash = createHash('sha256');
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) return;
      hash.update(chunk);
      if (keptBytes > REPORT_READ_BYTES) return;
      // A copy of the part kept: a slice would hold the whole chunk, and the socket's buffer behind it.
      const part = Buffer.from(chunk.subarray(0, REPORT_READ_BYTES + 1 - keptBytes));
      kept.push(part);
      keptBytes += part.length;
    });
    stream.once('error', reject);
    stream.once('end', () => {
      if (bytes > maxBytes || (stream as Readable & { sizeExceeded?: boolean }).sizeExceeded) return resolve({ tooBig: true, bytes });
      resolve({ tooBig: false, head: Buffer.concat(kept), id: hash.digest('hex'), bytes });
    });
  });
}
