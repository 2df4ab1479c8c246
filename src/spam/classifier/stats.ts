import type { Kysely } from 'kysely';
import { toCount } from '../../db/dialect.ts';
import type { Database } from '../../db/schema.ts';
import type { Site } from '../../sites/repository.ts';
import { isActive } from './cache.ts';
import { readTotals } from './store.ts';

/** What GET /api/sites/:id/classifier answers: the setting, the model's examples, and its holds as the moderation log has them. */
export async function classifierStats(db: Kysely<Database>, site: Site) {
  const { mode, threshold, min_examples } = site.spam.classifier;
  const totals = await readTotals(db, site.id);
  const rows = await db
    .selectFrom('moderation_log')
    .select(['action', (eb) => eb.fn.countAll().as('count')])
    .where('site_id', '=', site.id)
    .where('action', 'in', ['classifier_hold', 'classifier_agreed', 'classifier_disagreed'])
    .groupBy('action')
    .execute();
  const counted = (action: string) => toCount(rows.find((row) => row.action === action)?.count ?? 0);
  const agreed = counted('classifier_agreed');
  const disagreed = counted('classifier_disagreed');
  return {
    mode,
    threshold,
    min_examples,
    spam_examples: totals.spamExamples,
    ham_examples: totals.hamExamples,
    active: mode !== 'off' && isActive(totals, min_examples),
    holds: counted('classifier_hold'),
    agreed,
    disagreed,
    agreement_rate: agreed + disagreed === 0 ? null : agreed / (agreed + disagreed),
  };
}
