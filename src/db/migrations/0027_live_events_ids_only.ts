import type { Kysely } from 'kysely';

// Live events keep only the comment's id: streams read the comment as the public sees it when they
// send an event (src/live/feed.ts). The copies kept before held text since removed, replaced or
// deleted and the names of users since erased; they go. The column stays for instances of the
// previous release during an upgrade, which send an event without its copy as its comment's id.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db
    .updateTable('live_events' as never)
    .set({ data: null } as never)
    .where('data' as never, 'is not', null)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
