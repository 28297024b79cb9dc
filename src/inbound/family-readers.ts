import { readDomino, readNotes } from './families/lotus.js';
import { readImail } from './families/imail.js';
import { readInterScan } from './families/interscan.js';
import { readMessageLabs } from './families/messagelabs.js';
import { readPowerMta } from './families/powermta.js';
import { readVerizon } from './families/verizon.js';
import type { MimeMessage } from './mime-message.js';
import type { BounceReading } from './types.js';

/**
 * Readers for the bounce layouts of particular MTAs and services, tried
 * before the generic readers. Each recognises its family by what the MTA
 * always writes (a subject, a sender, a header, an opening sentence) and
 * returns null for anything else, so one never reads another's mail.
 *
 * `families` names the corpus families (sisimai's module names, as the
 * corpus files are named) each reader was written for: `npm run
 * inbound:quality` switches a family's readers off to show how the generic
 * layers do on it alone.
 */
export interface FamilyReader {
  name: string;
  families: readonly string[];
  read(message: MimeMessage): BounceReading | null;
}

export const FAMILY_READERS: readonly FamilyReader[] = [
  { name: 'domino', families: ['lhost-domino'], read: readDomino },
  { name: 'notes', families: ['lhost-notes'], read: readNotes },
  { name: 'powermta', families: ['lhost-powermta'], read: readPowerMta },
  { name: 'messagelabs', families: ['lhost-messagelabs', 'rhost-messagelabs'], read: readMessageLabs },
  { name: 'verizon', families: ['lhost-verizon'], read: readVerizon },
  { name: 'interscan', families: ['lhost-interscanmss', 'lhost-trendmicro'], read: readInterScan },
  { name: 'imail', families: ['lhost-imailserver'], read: readImail },
];

/** The first family reader's reading of the message, leaving out those named in `without`; null when none knows it. */
export function readFamilyReport(message: MimeMessage, without: ReadonlySet<string> = new Set()): BounceReading | null {
  for (const reader of FAMILY_READERS) {
    if (without.has(reader.name)) continue;
    const reading = reader.read(message);
    if (reading?.findings.length) return reading;
  }
  return null;
}

/** The names of the readers written for a corpus family. */
export function readersFor(family: string): string[] {
  return FAMILY_READERS.filter((reader) => reader.families.includes(family)).map((reader) => reader.name);
}
