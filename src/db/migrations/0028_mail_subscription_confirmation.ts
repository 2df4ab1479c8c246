import { sql, type Kysely } from 'kysely';

// Double opt-in per subscription, not per address: a comment's "Email me replies" mails only once
// that subscription is confirmed, by the link mailed for it (`confirm_token_hash`: the address's
// pending link that confirms it) or by the address owner's own session. Subscriptions made before
// count as confirmed when the address's confirmation covered them (made before it was confirmed),
// or when their comment's author is the signed-in user whose SSO address it is; others, which any
// guest could have made under a confirmed address, wait for a confirmation they will not get.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mail_subscriptions').addColumn('confirmed_at', 'text').execute();
  await db.schema.alterTable('mail_subscriptions').addColumn('confirm_token_hash', 'text').execute();
  await sql`update mail_subscriptions set confirmed_at = created_at
    where exists (select 1 from mail_addresses as a where a.id = mail_subscriptions.address_id and a.confirmed_at is not null
      and (mail_subscriptions.created_at <= a.confirmed_at
        or exists (select 1 from comments as c inner join site_users as u on u.id = c.author_ref
          where c.id = mail_subscriptions.comment_id and lower(u.email) = a.email)))`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
