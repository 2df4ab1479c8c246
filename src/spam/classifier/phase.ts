import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Site } from '../../sites/repository.ts';
import type { ModelCache } from './cache.ts';
import type { Totals } from './model.ts';
import { featuresOf } from './features.ts';
import { similarDecisions, type Similar } from './similar.ts';

/** The classifier's reason for holding a comment, as the pipeline stores it (a SpamReason). */
export interface ClassifierReason {
  check: 'classifier';
  code: 'classifier';
  detail: string;
  values: { score: number; similar: Similar[] };
}

/**
 * The pipeline's learning phase: when the site has it on and its model has learnt enough of each
 * kind, a comment the model scores at or above the site's threshold is held, with the score and
 * the earlier decisions it resembles.
 */
export async function classifierReason(trx: Transaction<Database>, models: ModelCache, site: Site, content: string, totals: Totals): Promise<ClassifierReason | null> {
  const settings = site.spam.classifier;
  if (settings.mode === 'off') return null;
  const model = await models.active(trx, site.id, settings.min_examples, totals);
  if (model === null) return null;
  const features = featuresOf(content);
  const score = model.score(features);
  if (score < settings.threshold) return null;
  const shown = Math.floor(score * 1000) / 1000;
  return {
    check: 'classifier',
    code: 'classifier',
    detail: `scored ${shown} as spam (held from ${settings.threshold}) by the classifier this site's moderators taught`,
    values: { score: shown, similar: await similarDecisions(trx, site.id, features) },
  };
}
