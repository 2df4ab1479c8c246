import { sql, type RawBuilder } from 'kysely';

const Z = 1.959964;

/**
 * Lower bound of the Wilson score interval (95 %) for the share of up votes: ranks a 5/0 comment
 * below a 50/2 one, which a plain ratio would not. Stored per comment so `sort=best` is an index scan.
 */
export function wilsonLowerBound(up: number, down: number): number {
  const n = up + down;
  if (n === 0) return 0;
  const p = up / n;
  return (p + (Z * Z) / (2 * n) - Z * Math.sqrt((p * (1 - p) + (Z * Z) / (4 * n)) / n)) / (1 + (Z * Z) / n);
}

/** wilsonLowerBound in SQL, of two columns (or other plain expressions) holding the counts. */
export function wilsonLowerBoundSql(up: RawBuilder<unknown>, down: RawBuilder<unknown>): RawBuilder<number> {
  const n = sql`cast(${up} + ${down} as double precision)`;
  const p = sql`(${up} / ${n})`;
  const z = sql.lit(Z);
  return sql<number>`case when ${up} + ${down} = 0 then 0
    else (${p} + ${z} * ${z} / (2 * ${n}) - ${z} * sqrt((${p} * (1 - ${p}) + ${z} * ${z} / (4 * ${n})) / ${n})) / (1 + ${z} * ${z} / ${n}) end`;
}
