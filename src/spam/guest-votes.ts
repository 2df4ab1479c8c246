import ipaddr from 'ipaddr.js';
import type { Kysely } from 'kysely';
import { actorRef, type Caller } from '../auth/caller.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Database } from '../db/schema.ts';
import { decodeSpamSettings } from './settings.ts';
import { ipRangeOf } from './signals.ts';

/**
 * Whom a vote or reaction is counted for: the caller's key, user or staff member, or for a guest
 * (no credential) the IP range of its address, `ip:<range>`. A range, not an address: the addresses
 * of one network (a phone moving between them, a script walking a /24) are one voter on a comment.
 */
export function voterRefOf(caller: Caller): string {
  return actorRef(caller) ?? `ip:${voterRangeOf(caller.ip)}`;
}

/**
 * An IPv4 guest's /24, as the velocity check counts guests; an IPv6 guest's /56, not the velocity
 * check's /64: a home connection is commonly given a /56, 256 /64s to vote from.
 */
function voterRangeOf(ip: string): string {
  if (!ipaddr.IPv6.isValid(ip)) return ipRangeOf(ip);
  const address = ipaddr.IPv6.parse(ip);
  if (address.isIPv4MappedAddress()) return ipRangeOf(ip);
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/56`).toString()}/56`;
}

const siteSettingsOfComment = preparedQuery((db, _shape: null, commentId: string) =>
  db.selectFrom('comments as c').innerJoin('sites as s', 's.id', 'c.site_id').select('s.spam_settings').where('c.id', '=', commentId).compile(),
);

/**
 * Whether a guest may vote and react on this comment: its site has `guest_votes` on. Asked before the
 * vote's transaction, so that where guests may not vote (the default) their request is answered 401
 * without taking a lock; a comment that does not exist is answered so too.
 */
export async function guestVotingOn(db: Kysely<Database>, commentId: string): Promise<boolean> {
  const [row] = await siteSettingsOfComment(db, null, commentId);
  return row !== undefined && decodeSpamSettings(row.spam_settings).guest_votes;
}
