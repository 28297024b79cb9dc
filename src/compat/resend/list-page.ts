import { Type, type Static } from 'typebox';
import { ValidationError } from '../../lib/errors.js';

/** Resend's cursor paging of a list: `limit` (1–100), and `after` or `before` an item's id. */
export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    after: Type.Optional(Type.String()),
    before: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type ListPaging = Static<typeof ListQuery>;

export interface ResendList<T> {
  object: 'list';
  has_more: boolean;
  data: T[];
}

/**
 * One page of a short list held whole (a workspace's domains or keys), in its
 * order: the items after (or before) the cursor's, at most `limit` of them;
 * everything when no limit is given. A cursor that names no item answers 422.
 */
export function listPage<T extends { id: string }>(items: T[], paging: ListPaging): ResendList<T> {
  if (paging.after !== undefined && paging.before !== undefined) throw new ValidationError('after and before cannot be given together');
  const cursor = paging.after ?? paging.before;
  const at = cursor === undefined ? -1 : items.findIndex((item) => item.id === cursor);
  if (cursor !== undefined && at < 0) throw new ValidationError(`${paging.after !== undefined ? 'after' : 'before'} is not an id of this list`);
  const limit = paging.limit ?? items.length;
  if (paging.before !== undefined) {
    const start = Math.max(0, at - limit);
    return { object: 'list', has_more: start > 0, data: items.slice(start, at) };
  }
  const start = at + 1;
  return { object: 'list', has_more: start + limit < items.length, data: items.slice(start, start + limit) };
}
