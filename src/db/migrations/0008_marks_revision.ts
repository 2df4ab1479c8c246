import { sql, type Kysely } from 'kysely';
import { createTriggers, type Trigger } from '../dialect.ts';

// site_users.marks_revision moves with every vote and reaction of that user (added, changed or
// taken back), so a reader's marks on a list can be kept by it (comments/reader-marks.ts) exactly as
// the list's other kept parts are by theirs (0007). Votes and reactions of API keys name no site
// user: their triggers update nothing.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('site_users').addColumn('marks_revision', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  const bump = (row: 'new' | 'old', column: string) => sql`update site_users set marks_revision = marks_revision + 1 where id = ${sql.raw(`${row}.${column}`)}`;
  const triggersOf = (table: string, column: string): Trigger[] => [
    { name: `${table}_marked`, when: `after insert on ${table} for each row`, body: bump('new', column) },
    { name: `${table}_remarked`, when: `after update on ${table} for each row`, body: bump('new', column) },
    { name: `${table}_unmarked`, when: `after delete on ${table} for each row`, body: bump('old', column) },
  ];
  await createTriggers(db, [...triggersOf('votes', 'voter_ref'), ...triggersOf('reactions', 'reactor_ref')]);
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
