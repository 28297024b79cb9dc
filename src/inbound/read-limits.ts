/**
 * How much of an inbound message the parser reads: its first REPORT_READ_BYTES,
 * and of those no more than REPORT_READ_LINES lines. What a report says of
 * its recipients (its text, its delivery-status or feedback-report part) and
 * the headers of the message it returns come first; what follows (the
 * returned message's body, up to the 10 MiB the receiver takes) is no report's
 * business. Read whole, it would only make the parse longer: mailparser alone takes
 * some 200 ms for 1 MB of empty lines, and each reader's work grows with the
 * lines of the text. The largest bounce of the shared corpus is 63 KiB and
 * 1,200 lines.
 */
export const REPORT_READ_BYTES = 128 * 1024;
export const REPORT_READ_LINES = 8192;

/**
 * The most bytes the address headers (From, To, Cc… in the message's head
 * and its parts' heads) may hold together. mailparser parses each into
 * addresses and HTML, some 600 ms a megabyte of `<`; a report's own are a
 * few hundred bytes.
 */
export const ADDRESS_HEADER_BYTES = 16 * 1024;

/** mailparser's address headers (mail-parser.js, processHeaders). */
const ADDRESS_HEADER = /^(?:from|to|cc|bcc|sender|reply-to|delivered-to|return-path|disposition-notification-to)[ \t]*:/i;

/** The part of the message the parser reads (see above), cut after a line break when there is one. */
export function reportPortion(raw: Buffer): Buffer {
  let end = 0;
  for (let lines = 0; lines < REPORT_READ_LINES && end < raw.length; lines++) {
    const lineBreak = raw.indexOf(0x0a, end);
    if (lineBreak === -1 && raw.length <= REPORT_READ_BYTES) return raw;
    if (lineBreak === -1 || lineBreak >= REPORT_READ_BYTES) return raw.subarray(0, end > 0 ? end : REPORT_READ_BYTES);
    end = lineBreak + 1;
  }
  return raw.subarray(0, end);
}

/**
 * Throws when the address headers of `portion` hold more than
 * ADDRESS_HEADER_BYTES. A head is the message's first lines up to a blank
 * one, and the lines after a `--` line (a MIME boundary, or text that looks
 * like one: counted too, so the bound holds whatever the boundaries are).
 */
export function checkAddressHeaders(portion: Buffer): void {
  const lines = portion.toString('latin1').split('\n');
  let inHead = true;
  let inAddress = false;
  let bytes = 0;
  for (const line of lines) {
    if (!inHead) {
      inHead = line.startsWith('--');
      continue;
    }
    if (line === '' || line === '\r') {
      inHead = false;
      inAddress = false;
      continue;
    }
    if (line[0] !== ' ' && line[0] !== '\t') inAddress = ADDRESS_HEADER.test(line);
    if (inAddress) bytes += line.length + 1;
  }
  if (bytes > ADDRESS_HEADER_BYTES) {
    throw new Error(`its address headers hold ${bytes} bytes, more than the ${ADDRESS_HEADER_BYTES} any report writes`);
  }
}
