import { detectMimeType } from 'nodemailer/lib/mime-funcs';
import type { MessageAttachmentsTable } from '../../db/schema.js';
import { ValidationError } from '../../lib/errors.js';
import { hasControlCharacters } from '../../lib/email-address.js';
import { checkBase64, decodeBase64 } from './base64-content.js';

/** One item of a send's `attachments`, once its JSON types are checked. */
export interface AttachmentInput {
  filename: string;
  /** Base64; line breaks allowed. */
  content: string;
  content_type?: string | null | undefined;
  content_id?: string | null | undefined;
}

/** 40 MB (MiB) of decoded bytes per message, all attachments together (issue 16, point 2). */
export const MAX_ATTACHMENT_BYTES = 40 * 1024 * 1024;
/** The limit as the sentences say it. */
export const ATTACHMENT_LIMIT = '40 MB';
export const MAX_ATTACHMENTS = 100;
export const MAX_FILENAME_LENGTH = 255;
export const MAX_CONTENT_ID_LENGTH = 250;

/**
 * Extensions refused as attachments: executables, scripts, installers and the
 * containers that hide them (Gmail's list). Compared case-insensitively, on the
 * name with trailing dots and spaces removed (Windows drops them: `a.exe.`).
 */
export const BLOCKED_EXTENSIONS: readonly string[] = [
  'ade', 'adp', 'apk', 'appx', 'appxbundle', 'bat', 'cab', 'chm', 'cmd', 'com', 'cpl', 'diagcab', 'diagcfg', 'diagpack',
  'dll', 'dmg', 'ex', 'ex_', 'exe', 'hta', 'img', 'ins', 'iso', 'isp', 'jar', 'jnlp', 'js', 'jse', 'lib', 'lnk', 'mde',
  'msc', 'msi', 'msix', 'msixbundle', 'msp', 'mst', 'nsh', 'pif', 'ps1', 'scr', 'sct', 'shb', 'sys', 'vb', 'vbe', 'vbs',
  'vhd', 'vxd', 'wsc', 'wsf', 'wsh', 'xll',
];
const BLOCKED = new Set(BLOCKED_EXTENSIONS);

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** `type/subtype`, optionally with `; name=value` parameters (RFC 2045). */
const MIME_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\]*"))*$`);
/** A Content-ID's inside: printable ASCII, no space, no angle brackets. */
const CONTENT_ID = /^[\x21-\x3b\x3d\x3f-\x7e]+$/;

/** What an attachment's property is called in a refusal: the JSON field by default (`attachments[0].filename`). */
export type AttachmentFieldName = (index: number, property: 'filename' | 'content_type' | 'content_id' | 'content') => string;
const JSON_FIELD_NAME: AttachmentFieldName = (index, property) => `attachments[${index}].${property}`;

/** `41.2 MB`: MB as the limit counts them (MiB). */
export function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The total decoded size of a send's attachments, after checking every rule
 * but the decoding itself; throws a ValidationError naming the field as
 * `fieldName` calls it (SMTP submission names the MIME part). Nothing is
 * allocated for the content yet.
 */
export function checkAttachments(input: AttachmentInput[] | null | undefined, fieldName: AttachmentFieldName = JSON_FIELD_NAME): number {
  if (!input || input.length === 0) return 0;
  if (input.length > MAX_ATTACHMENTS) {
    throw new ValidationError(`attachments must contain at most ${MAX_ATTACHMENTS} attachments (got ${input.length})`);
  }
  let total = 0;
  const contentIds = new Set<string>();
  input.forEach((item, index) => {
    checkFilename(fieldName(index, 'filename'), item.filename);
    if (item.content_type !== undefined && item.content_type !== null) checkContentType(fieldName(index, 'content_type'), item.content_type);
    const contentId = contentIdOf(fieldName(index, 'content_id'), item.content_id);
    if (contentId !== null) {
      if (contentIds.has(contentId)) throw new ValidationError(`${fieldName(index, 'content_id')} "${contentId}" is given twice`);
      contentIds.add(contentId);
    }
    const check = checkBase64(item.content);
    if (!check.ok) throw new ValidationError(`${fieldName(index, 'content')} must be base64 (got ${check.problem})`);
    total += check.decodedBytes;
  });
  if (total > MAX_ATTACHMENT_BYTES) {
    throw new ValidationError(`attachments must be at most ${ATTACHMENT_LIMIT} together after decoding (got ${megabytes(total)})`);
  }
  return total;
}

/**
 * Decodes attachments that passed checkAttachments into the rows of message
 * `messageId`. Each item's base64 is let go of as soon as it is decoded (the
 * request body holds it otherwise until the answer is sent): at 40 MB, the
 * string is 53 MB the process need not keep while the send is written.
 */
export function attachmentRows(messageId: string, workspaceId: string, input: AttachmentInput[]): MessageAttachmentsTable[] {
  return input.map((item, position) => {
    const content = decodeBase64(item.content);
    item.content = '';
    return {
      message_id: messageId,
      position,
      workspace_id: workspaceId,
      filename: item.filename,
      content_type: item.content_type?.trim() || detectMimeType(item.filename),
      content_id: contentIdOf('attachments.content_id', item.content_id),
      size_bytes: content.byteLength,
      content,
    };
  });
}

function checkFilename(field: string, filename: string): void {
  if (filename.trim() === '') throw new ValidationError(`${field} must not be empty`);
  if (hasControlCharacters(filename)) throw new ValidationError(`${field} must not contain line breaks or control characters`);
  if (filename.length > MAX_FILENAME_LENGTH) {
    throw new ValidationError(`${field} must be at most ${MAX_FILENAME_LENGTH} characters long`);
  }
  // From the start of the trailing run only: a run tried from each of its places is quadratic.
  const base = filename.replace(/(?<![.\s])[.\s]+$/, '');
  const dot = base.lastIndexOf('.');
  const extension = dot >= 0 ? base.slice(dot + 1).toLowerCase() : '';
  if (BLOCKED.has(extension)) {
    throw new ValidationError(`${field} has a blocked file type (.${extension}): executables cannot be attached`);
  }
}

function checkContentType(field: string, contentType: string): void {
  if (hasControlCharacters(contentType)) throw new ValidationError(`${field} must not contain line breaks or control characters`);
  if (!MIME_TYPE.test(contentType.trim())) {
    throw new ValidationError(`${field} must be a MIME type such as application/pdf (got ${JSON.stringify(contentType)})`);
  }
}

/** The Content-ID without angle brackets (`<logo>` and `logo` are the same), or null for none; refusals name `field`. */
function contentIdOf(field: string, value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (hasControlCharacters(value)) throw new ValidationError(`${field} must not contain line breaks or control characters`);
  const bare = value.trim().replace(/^<(.*)>$/, '$1');
  if (bare === '') throw new ValidationError(`${field} must not be empty`);
  if (bare.length > MAX_CONTENT_ID_LENGTH) {
    throw new ValidationError(`${field} must be at most ${MAX_CONTENT_ID_LENGTH} characters long`);
  }
  if (!CONTENT_ID.test(bare)) {
    throw new ValidationError(`${field} must be printable ASCII without spaces or angle brackets (got ${JSON.stringify(value)})`);
  }
  return bare;
}
