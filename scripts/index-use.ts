import type pg from 'pg';

export interface IndexUse {
  table: string;
  index: string;
  scans: number;
  size: string;
}

/**
 * How often each index of the comments' tables was read since the statistics were last reset, and
 * its size: an index no path reads costs every write that touches it for nothing.
 */
export async function indexUse(client: pg.Client): Promise<IndexUse[]> {
  // A server process that has gone idle flushes its statistics within 10 s (PostgreSQL 15).
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  const { rows } = await client.query(`select relname as "table", indexrelname as index, idx_scan::int as scans, pg_size_pretty(pg_relation_size(indexrelid)) as size
    from pg_stat_user_indexes where relname in ('comments', 'comment_counts') order by relname, idx_scan desc, indexrelname`);
  return rows;
}

export function formatIndexUse(rows: IndexUse[]): string {
  return rows.map((row) => `  ${row.table}.${row.index}: ${row.scans} scans, ${row.size}\n`).join('');
}
