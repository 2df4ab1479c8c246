import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { describeActors } from '../moderation/actors.ts';
import type { Site } from '../sites/repository.ts';

/** A user of this site (404 for any other id, another site's users included). */
export async function siteUser(db: Db, site: Site, userId: string) {
  const user = await db.kysely.selectFrom('site_users').selectAll().where('id', '=', userId).where('site_id', '=', site.id).executeTakeFirst();
  if (!user) throw new AppError('not_found', `No user ${userId} on this site`);
  return user;
}

export async function notesOf(db: Db, site: Site, userId: string) {
  const rows = await db.kysely
    .selectFrom('commenter_notes')
    .selectAll()
    .where('site_id', '=', site.id)
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const actors = await describeActors(db.kysely, rows.map((row) => row.created_by));
  return rows.map((row) => ({ id: row.id, body: row.body, created_by: actors(row.created_by), created_at: row.created_at }));
}

