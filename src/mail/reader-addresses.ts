import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { normaliseEmail } from '../staff/repository.ts';
import { madeAddress } from './readers.ts';

/**
 * Where each reader's mail (mentions, followed pages, decisions, digests) goes: the address their
 * sign-in proved or their site's SSO gave (site_users.email, which reply mail takes as theirs with no
 * confirmation), else the latest address they confirmed through a link. Readers with neither get
 * none. The caller picks the readers (not erased, wanting that mail).
 */
export async function readerAddresses(db: Kysely<Database>, siteId: string, users: Array<{ id: string; email: string | null }>): Promise<Array<{ userId: string; email: string }>> {
  const withoutOwn = users.filter((user) => user.email === null).map((user) => user.id);
  const confirmed =
    withoutOwn.length === 0
      ? []
      : await db
          .selectFrom('mail_addresses')
          .select(['user_id', 'email'])
          .where('site_id', '=', siteId)
          .where('user_id', 'in', withoutOwn)
          .where('confirmed_at', 'is not', null)
          .orderBy('confirmed_at')
          .execute();
  // Ordered oldest first: the latest confirmed one is kept.
  const confirmedOf = new Map(confirmed.map((address) => [address.user_id, address.email]));
  return users.flatMap((user) => {
    const email = user.email === null ? confirmedOf.get(user.id) : normaliseEmail(user.email);
    return email === undefined ? [] : [{ userId: user.id, email }];
  });
}

/**
 * The site's rows of the readers' addresses (their unsubscribe links' keys, and whether they stopped
 * all mail), each made on its first use as the reader's own, confirmed address.
 */
export async function addressRows(trx: Transaction<Database>, siteId: string, readers: Array<{ userId: string; email: string }>, now: string) {
  const known = readers.length === 0 ? [] : await trx.selectFrom('mail_addresses').select(['id', 'email', 'unsubscribed_at']).where('site_id', '=', siteId).where('email', 'in', readers.map((reader) => reader.email)).execute();
  const byEmail = new Map(known.map((address) => [address.email, { id: address.id, unsubscribedAt: address.unsubscribed_at }]));
  const rows = new Map<string, { id: string; unsubscribedAt: string | null }>();
  for (const reader of readers) {
    const address = byEmail.get(reader.email) ?? (await madeAddress(trx, siteId, reader.email, reader.userId, true, now));
    rows.set(reader.userId, address);
  }
  return rows;
}
