/**
 * Cursor pagination for lists sorted newest first (created_at desc, _id desc). The cursor is
 * opaque to clients: base64url of the last item's [created_at, _id].
 */
import type { Collection, Document, Filter } from 'mongodb';
import { ApiError } from '../domain/errors';
import type { AppContext } from './context';
import type { ParameterDoc } from './routes';

export const PAGE_QUERY_DOCS: ParameterDoc[] = [
  { name: 'limit', description: 'page size, 1 to 100 (default 20)', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
  { name: 'cursor', description: 'next_cursor of the previous page' },
];

interface PageRequest {
  limit: number;
  after?: { createdAt: Date; id: string };
}

export function readPageRequest(ctx: AppContext): PageRequest {
  const rawLimit = ctx.query.limit;
  const limit = rawLimit === undefined ? 20 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new ApiError('validation', 'limit must be an integer between 1 and 100', { fieldErrors: [{ field: 'limit', code: 'INVALID', message: 'limit must be an integer between 1 and 100' }] });
  }
  const cursor = ctx.query.cursor;
  if (cursor === undefined) return { limit };
  try {
    const [at, id] = JSON.parse(Buffer.from(String(cursor), 'base64url').toString('utf8')) as [string, string];
    const createdAt = new Date(at);
    if (typeof id !== 'string' || Number.isNaN(createdAt.getTime())) throw new Error('bad cursor');
    return { limit, after: { createdAt, id } };
  } catch {
    throw new ApiError('validation', 'cursor is not valid', { fieldErrors: [{ field: 'cursor', code: 'INVALID', message: 'cursor is not valid' }] });
  }
}

export async function readPage<D extends { _id: string; created_at: Date }>(
  collection: Collection<D>,
  filter: Filter<D>,
  page: PageRequest,
): Promise<{ items: D[]; hasMore: boolean; nextCursor: string | null }> {
  const where: Document = page.after
    ? { $and: [filter, { $or: [{ created_at: { $lt: page.after.createdAt } }, { created_at: page.after.createdAt, _id: { $lt: page.after.id } }] }] }
    : filter;
  const found = (await collection.find(where as Filter<D>).sort({ created_at: -1, _id: -1 }).limit(page.limit + 1).toArray()) as D[];
  const items = found.slice(0, page.limit);
  const last = items[items.length - 1];
  const hasMore = found.length > page.limit;
  return {
    items,
    hasMore,
    nextCursor: hasMore && last ? Buffer.from(JSON.stringify([last.created_at.toISOString(), last._id])).toString('base64url') : null,
  };
}
