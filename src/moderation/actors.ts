import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { authorKind } from './queue-details.ts';
import { CLASSIFIER_ACTOR } from '../spam/classifier/learning.ts';

/**
 * Names the people behind refs that the moderation tables record (moderators, flaggers, who banned
 * or wrote a note): site users, staff members (stf_, signed in to the dashboard) and API keys by
 * name; a guest (`ip:` ref) by kind alone; the spam classifier's holds as the system's `classifier`.
 */
export async function describeActors(db: Kysely<Database>, refs: string[]) {
  const users = refs.filter((ref) => ref.startsWith('usr_'));
  const keys = refs.filter((ref) => ref.startsWith('key_'));
  const staff = refs.filter((ref) => ref.startsWith('stf_'));
  const [userRows, keyRows, staffRows] = await Promise.all([
    users.length ? db.selectFrom('site_users').select(['id', 'name']).where('id', 'in', [...new Set(users)]).execute() : [],
    keys.length ? db.selectFrom('api_keys').select(['id', 'name']).where('id', 'in', [...new Set(keys)]).execute() : [],
    staff.length ? db.selectFrom('staff').select(['id', 'name']).where('id', 'in', [...new Set(staff)]).execute() : [],
  ]);
  const names = new Map([...userRows, ...keyRows, ...staffRows].map((row) => [row.id, row.name]));
  return (ref: string) => {
    if (ref.startsWith('ip:')) return { id: null, kind: 'guest' as const, name: null };
    if (ref === CLASSIFIER_ACTOR) return { id: null, kind: 'system' as const, name: 'classifier' };
    return { id: ref, kind: authorKind(ref), name: names.get(ref) ?? null };
  };
}
