import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { Type } from 'typebox';
import { invalid } from '../errors.ts';

/**
 * Cursor pagination for lists ordered by (sort key…, id): a cursor names the last item of a page
 * and the next page starts strictly after it, so items added meanwhile never shift a page (new
 * ones fall before the first page of a newest-first list). Opaque to clients: base64url JSON that
 * also names the order it belongs to.
 */
export const PageQuery = {
  cursor: Type.Optional(Type.String({ maxLength: 1000, description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
};

export const NextCursor = Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page' });

export type KeyValue = string | number;

export function encodeCursor(order: string, key: KeyValue[]): string {
  return Buffer.from(JSON.stringify([order, ...key])).toString('base64url');
}

/**
 * A cursor key's part: text (no NUL, which PostgreSQL's text refuses), a count (an integer that fits
 * a 32-bit `integer` column, as flag_count does on PostgreSQL), or any other whole number (a search
 * key). Cursors are made by the client's hands as much as by ours: a part the database would refuse
 * must be a 400 here, never a database error.
 */
export type KeyType = 'string' | 'count' | 'integer';

const MAX_COUNT = 2 ** 31 - 1;

function isKeyOf(type: KeyType, value: unknown): boolean {
  if (type === 'string') return typeof value === 'string' && value.length <= 200 && !value.includes('\u0000');
  if (!Number.isSafeInteger(value)) return false;
  return type === 'integer' || ((value as number) >= 0 && (value as number) <= MAX_COUNT);
}

/** The key a cursor names, checked against the list's order and the key's types (400 otherwise). */
export function decodeCursor(cursor: string, order: string, types: KeyType[]): KeyValue[] {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = null;
  }
  const valid = Array.isArray(decoded) && decoded.length === types.length + 1 && decoded[0] === order && types.every((type, i) => isKeyOf(type, decoded[i + 1]));
  if (!valid) throw invalid('querystring/cursor', 'is not a cursor of this list and order');
  return (decoded as KeyValue[]).slice(1);
}

/** SQL: the row's key comes after the cursor's in the order (`desc`: smaller), as a row-value comparison indexes serve. */
export function afterKey(columns: string[], key: KeyValue[], direction: 'asc' | 'desc'): RawBuilder<SqlBool> {
  const operator = sql.raw(direction === 'desc' ? '<' : '>');
  return sql<SqlBool>`(${sql.join(columns.map((column) => sql.ref(column)))}) ${operator} (${sql.join(key)})`;
}

/** A page of `limit` rows read as `limit + 1`: the extra row says there is a next page. */
export function pageOf<T>(rows: T[], limit: number, keyOf: (row: T) => KeyValue[], order: string): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, limit);
  return { items, next_cursor: rows.length > limit ? encodeCursor(order, keyOf(items[items.length - 1])) : null };
}
