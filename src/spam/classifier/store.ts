import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { nowIso } from '../../clock.ts';
import { featuresOf } from './features.ts';
import type { Label, Totals } from './model.ts';

/** Count rows written by one statement: 4 values each, well under SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const ROWS_A_STATEMENT = 1_000;

export const encodeFeatures = (features: Uint32Array) => Buffer.from(features.buffer, features.byteOffset, features.byteLength).toString('base64');

export function decodeFeatures(column: string): Uint32Array {
  const bytes = Buffer.from(column, 'base64');
  const features = new Uint32Array(bytes.length / 4);
  new Uint8Array(features.buffer).set(bytes);
  return features;
}

/** Adds one comment's features under its label (by 1) or takes them back (by -1), in the site's counts and totals. */
async function count(trx: Transaction<Database>, siteId: string, features: Uint32Array, label: Label, by: 1 | -1) {
  const spam = label === 'spam' ? by : 0;
  const ham = label === 'ham' ? by : 0;
  await trx.insertInto('classifier_models').values({ site_id: siteId }).onConflict((oc) => oc.column('site_id').doNothing()).execute();
  // The totals first: their row is the site's lock on PostgreSQL, so two decisions count one after the other.
  await trx
    .updateTable('classifier_models')
    .set((eb) => ({
      spam_examples: eb('spam_examples', '+', spam),
      ham_examples: eb('ham_examples', '+', ham),
      spam_features: eb('spam_features', '+', spam * features.length),
      ham_features: eb('ham_features', '+', ham * features.length),
      version: eb('version', '+', 1),
    }))
    .where('site_id', '=', siteId)
    .execute();
  for (let start = 0; start < features.length; start += ROWS_A_STATEMENT) {
    const rows = [...features.subarray(start, start + ROWS_A_STATEMENT)].map((bucket) => ({ site_id: siteId, bucket, spam, ham }));
    await trx
      .insertInto('classifier_counts')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['site_id', 'bucket']).doUpdateSet({
          spam: sql<number>`classifier_counts.spam + excluded.spam`,
          ham: sql<number>`classifier_counts.ham + excluded.ham`,
        }),
      )
      .execute();
  }
}

/**
 * Learns a moderator's decision on a comment: its text as it is now, under the label. A comment
 * learnt before under the other label is re-labelled (its features as they were learnt taken back),
 * never counted twice; under the same label nothing changes. Returns whether the model changed.
 */
export async function learn(trx: Transaction<Database>, siteId: string, commentId: string, content: string, label: Label): Promise<boolean> {
  const before = await trx.selectFrom('classifier_examples').select(['label', 'features']).where('comment_id', '=', commentId).executeTakeFirst();
  if (before?.label === label) return false;
  if (before) await count(trx, siteId, decodeFeatures(before.features), before.label, -1);
  const features = featuresOf(content);
  await count(trx, siteId, features, label, 1);
  const example = { label, features: encodeFeatures(features), created_at: nowIso() };
  if (before) await trx.updateTable('classifier_examples').set(example).where('comment_id', '=', commentId).execute();
  else await trx.insertInto('classifier_examples').values({ comment_id: commentId, site_id: siteId, ...example }).execute();
  return true;
}

/**
 * Forgets what the model learnt from a comment (a decision undone): its features taken back from
 * the counts of its label, as they were learnt. Returns whether there was anything to forget.
 */
export async function unlearn(trx: Transaction<Database>, siteId: string, commentId: string): Promise<boolean> {
  const example = await trx
    .deleteFrom('classifier_examples')
    .where('comment_id', '=', commentId)
    .where('site_id', '=', siteId)
    .returning(['label', 'features'])
    .executeTakeFirst();
  if (!example) return false;
  await count(trx, siteId, decodeFeatures(example.features), example.label, -1);
  return true;
}

const NO_TOTALS: Totals = { version: 0, spamExamples: 0, hamExamples: 0, spamFeatures: 0, hamFeatures: 0 };

/** classifier_models' columns, null where a site has no row (read by a left join). */
export type TotalsColumns = Record<'version' | 'spam_examples' | 'ham_examples' | 'spam_features' | 'ham_features', number | string | null>;

/** The totals of a site's classifier_models row; none yet when it has no row. */
export function totalsFrom(row: TotalsColumns | undefined): Totals {
  if (!row || row.version === null) return NO_TOTALS;
  const { version, spam_examples, ham_examples, spam_features, ham_features } = row;
  return { version: Number(version), spamExamples: Number(spam_examples), hamExamples: Number(ham_examples), spamFeatures: Number(spam_features), hamFeatures: Number(ham_features) };
}

export async function readTotals(db: Kysely<Database>, siteId: string): Promise<Totals> {
  return totalsFrom(await db.selectFrom('classifier_models').selectAll().where('site_id', '=', siteId).executeTakeFirst());
}

export function readCounts(db: Kysely<Database>, siteId: string) {
  return db.selectFrom('classifier_counts').select(['bucket', 'spam', 'ham']).where('site_id', '=', siteId).execute();
}
