import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { excerpt } from '../../comments/excerpt.ts';
import type { Label } from './model.ts';
import { decodeFeatures } from './store.ts';

/** The site's latest decisions a held comment is compared with: bounded, so a hold costs the same on a site of any age. */
const CANDIDATES = 500;
const SHOWN = 3;

export interface Similar {
  comment_id: string;
  excerpt: string | null;
  decision: Label;
}

/** Words two sorted feature lists share, over the words of either (Jaccard). */
function overlap(a: Uint32Array, b: Uint32Array): number {
  let shared = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) {
      shared++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return shared / (a.length + b.length - shared || 1);
}

/**
 * The earlier decisions a comment resembles most: of the site's latest ones, the three sharing the
 * largest part of their words with it, those of comments since deleted left out.
 */
export async function similarDecisions(trx: Transaction<Database>, siteId: string, features: Uint32Array): Promise<Similar[]> {
  const examples = await trx
    .selectFrom('classifier_examples')
    .select(['comment_id', 'label', 'features'])
    .where('site_id', '=', siteId)
    .orderBy('created_at', 'desc')
    .limit(CANDIDATES)
    .execute();
  const nearest = examples
    .map((example) => ({ ...example, similarity: overlap(features, decodeFeatures(example.features)) }))
    .filter((example) => example.similarity > 0)
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, SHOWN * 2);
  if (nearest.length === 0) return [];
  const comments = await trx
    .selectFrom('comments')
    .select(['id', 'content'])
    .where('id', 'in', nearest.map((example) => example.comment_id))
    .where('is_deleted', '=', 0)
    .execute();
  const contents = new Map(comments.map((comment) => [comment.id, comment.content]));
  return nearest
    .filter((example) => contents.has(example.comment_id))
    .slice(0, SHOWN)
    .map((example) => ({ comment_id: example.comment_id, excerpt: excerpt(contents.get(example.comment_id)!), decision: example.label }));
}
