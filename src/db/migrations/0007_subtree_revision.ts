import type { Kysely } from 'kysely';
import { createSubtreeRevisionTriggers } from '../dialect.ts';

// A counter on every top-level comment that moves whenever anything the public could see in it or
// in the replies below it changes: a reply added, or a shown column of any comment of the subtree
// updated. Public lists keep each top-level comment's serialised subtree by this counter
// (src/comments/subtree-cache.ts), and a read compares it with the database's, so a cached subtree
// is exact in every instance without being told of writes. Triggers keep it, so no write path
// (today's or a later one) can forget to.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('comments').addColumn('subtree_revision', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await createSubtreeRevisionTriggers(db);
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
