import { relabelledBadges, WRITTEN_BADGES } from '../comments/badges.ts';
import { cleanText, NAME_PATTERN } from '../comments/text.ts';
import type { Db } from '../db/connect.ts';
import { invalid } from '../errors.ts';
import type { Site } from '../sites/repository.ts';
import { siteUser } from './repository.ts';

export const MAX_LABELS = 5;
export const MAX_LABEL = 32;

const SHOWN_AS_WRITTEN = new RegExp(NAME_PATTERN, 'u');

/** The labels as stored: each cleaned as names are, on one line, none twice (whatever the case), none reading as a written badge. */
export function cleanLabels(raw: string[]): string[] {
  const seen = new Set<string>();
  return raw.map((rawLabel, index) => {
    const path = `body/labels/${index}`;
    const label = cleanText(path, rawLabel, MAX_LABEL);
    if (/[\n\t]/.test(label)) throw invalid(path, 'must be on one line');
    if (!SHOWN_AS_WRITTEN.test(label)) throw invalid(path, 'must not contain invisible or direction-changing characters');
    const key = label.toLowerCase();
    if (WRITTEN_BADGES.has(key)) throw invalid(path, `must not be "${key}": that badge comes from how a comment is written`);
    if (seen.has(key)) throw invalid(path, 'must not repeat another label');
    seen.add(key);
    return label;
  });
}

/**
 * Gives a site user these labels, in place of theirs, and every comment of theirs on the site shows
 * them from now on: their badges are rewritten in one statement (what vouched for each comment when
 * written stays). Every thread of the site may hold one, so the site's lists are announced changed.
 */
export async function setLabels(db: Db, site: Site, userId: string, rawLabels: string[]): Promise<void> {
  const labels = cleanLabels(rawLabels);
  await siteUser(db, site, userId);
  await db.kysely.transaction().execute(async (trx) => {
    await trx.updateTable('site_users').set({ labels: JSON.stringify(labels) }).where('id', '=', userId).where('site_id', '=', site.id).execute();
    await trx.updateTable('comments').set({ author_badges: relabelledBadges(labels) }).where('site_id', '=', site.id).where('author_ref', '=', userId).execute();
  });
  db.changes.siteChanged(site.id);
}
