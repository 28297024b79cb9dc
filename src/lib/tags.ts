import { ValidationError } from './errors.js';

/**
 * Tags of a send (issue 16, point 4): `[{name, value}]` in a request, kept as
 * one JSON object `{name: value}` in request order on the message and on each
 * of its log entries, answered so in log entries, the message's detail and
 * every webhook payload of the message, and searched with `tag=name:value`.
 */

/** At most this many tags per send. */
export const MAX_TAGS = 20;
/** At most this many characters in a tag's name, and in its value. */
export const MAX_TAG_PART_LENGTH = 256;

const TAG_PART = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_TAG_PART_LENGTH}}$`);
const PART_RULE = `1 to ${MAX_TAG_PART_LENGTH} ASCII letters, digits, _ or -`;

export interface TagInput {
  name: string;
  value: string;
}

/** A tag: its name and value, each checked. */
export type Tag = [name: string, value: string];

/** Checks the `tags` of a send; answers [name, value] pairs in request order. */
export function parseTags(input: TagInput[] | null | undefined): Tag[] {
  if (!input) return [];
  if (input.length > MAX_TAGS) throw new ValidationError(`tags must contain at most ${MAX_TAGS} tags (got ${input.length})`);
  const seen = new Set<string>();
  return input.map(({ name, value }, index) => {
    for (const [part, text] of [['name', name], ['value', value]] as const) {
      if (!TAG_PART.test(text)) throw new ValidationError(`tags[${index}].${part} must be ${PART_RULE} (got ${JSON.stringify(text)})`);
    }
    if (seen.has(name)) throw new ValidationError(`tags[${index}].name ${JSON.stringify(name)} is given twice`);
    seen.add(name);
    return [name, value];
  });
}

/** The stored form: a JSON object in request order, or null when there are none. */
export function tagsJson(tags: Tag[]): string | null {
  return tags.length === 0 ? null : JSON.stringify(Object.fromEntries(tags));
}

/** The object answered for stored tags: `{}` when there are none. */
export function tagsObject(stored: string | null): Record<string, string> {
  return stored === null ? {} : (JSON.parse(stored) as Record<string, string>);
}

/** The rows the logs' tag filter reads (one per tag), from the stored form. */
export function tagPairs(stored: string | null): Tag[] {
  return Object.entries(tagsObject(stored));
}

/** GET /v1/send/logs's `tag=name:value`, split at its first colon and checked as a send's tags are. */
export function parseTagFilter(text: string): TagInput {
  const colon = text.indexOf(':');
  const [name, value] = colon < 0 ? [text, ''] : [text.slice(0, colon), text.slice(colon + 1)];
  if (colon < 0 || !TAG_PART.test(name) || !TAG_PART.test(value)) {
    throw new ValidationError(`tag must be name:value, each ${PART_RULE} (got ${JSON.stringify(text)})`);
  }
  return { name, value };
}
