import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectName, startParley, type TestParley } from '../../test/helper.ts';
import { hiddenInChain } from './repository.ts';
import { PUBLIC_VIEWER } from './visibility.ts';

// A plan kept on a connection (planOnce) outlives the table sizes it was made for: made while the
// comments table is small, it must still walk the chain by key once the table is large.
describe.skipIf(dialectName !== 'postgres')("the walk up a comment's ancestors on PostgreSQL", () => {
  let parley: TestParley;
  beforeAll(async () => {
    parley = await startParley();
  });
  afterAll(() => parley.close());

  it('looks each ancestor up by primary key in a generic plan made on a small table', async () => {
    const plan = await parley.app.db.kysely.connection().execute(async (connection) => {
      await sql`set plan_cache_mode = force_generic_plan`.execute(connection);
      const walk = sql`select ${hiddenInChain('postgres', PUBLIC_VIEWER, sql.raw('$1') as never)} as hidden`.compile(connection);
      await sql.raw(`prepare chain_walk(text) as ${walk.sql}`).execute(connection);
      const { rows } = await sql.raw<{ 'QUERY PLAN': string }>(`explain execute chain_walk('cmt_none')`).execute(connection);
      await sql`deallocate chain_walk`.execute(connection);
      await sql`reset plan_cache_mode`.execute(connection);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).not.toMatch(/Seq Scan on comments|Hash Join/);
    expect(plan.match(/Index Scan using comments_pkey/g)).toHaveLength(2);
  });
});
