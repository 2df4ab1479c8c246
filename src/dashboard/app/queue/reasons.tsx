import { currentLocale, t, type MessageKey } from '../i18n.ts';
import type { Site } from '../session.ts';
import { standingOf, type QueueItem } from './actions.ts';

type SpamReason = QueueItem['spam_reasons'][number];
/** An earlier decision the classifier's score resembles (its reason's `similar`). */
interface Similar {
  comment_id: string;
  excerpt: string;
  decision: 'spam' | 'ham';
}

const REASONS: Record<string, MessageKey> = {
  form_hidden_field: 'queue.reason.form_hidden_field',
  form_token: 'queue.reason.form_token',
  form_too_fast: 'queue.reason.form_too_fast',
  duplicate_same_author: 'queue.reason.duplicate_same_author',
  duplicate_authors: 'queue.reason.duplicate_authors',
  suspect_word: 'queue.reason.suspect_word',
  too_many_links: 'queue.reason.too_many_links',
  link_new_author: 'queue.reason.link_new_author',
  velocity_ip_range: 'queue.reason.velocity_ip_range',
  velocity_thread: 'queue.reason.velocity_thread',
  velocity_site: 'queue.reason.velocity_site',
  history: 'queue.reason.history',
  classifier: 'queue.reason.classifier',
};

/** A reason in words: its code's message with its values, or the server's own words for a code this dashboard does not know. */
export function reasonText(reason: SpamReason): string {
  const key = reason.code === undefined ? undefined : REASONS[reason.code];
  if (!key || !reason.values) return reason.detail;
  const values = Object.fromEntries(Object.entries(reason.values).filter((entry): entry is [string, string | number] => !Array.isArray(entry[1])));
  return t(key, values);
}

export const similarOf = (reason: SpamReason) => (reason.code === 'classifier' && Array.isArray(reason.values?.similar) ? (reason.values.similar as unknown as Similar[]) : []);

/** Flags counted by reason, the most given first ("harassment ×3, spam ×1"); flags without one count as "no reason given", last of equals. */
export function flagGroups(flags: QueueItem['flags']['reasons']): Array<{ reason: string; count: number }> {
  const counts = new Map<string | null, number>();
  for (const flag of flags) {
    const reason = flag.reason?.trim() || null;
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts]
    .sort(([a, m], [b, n]) => n - m || Number(a === null) - Number(b === null))
    .map(([reason, count]) => ({ reason: reason ?? t('queue.noReason'), count }));
}

/** The author's ban, and the site when the queue shows several: beside the author's name. */
export function Standing(props: { item: QueueItem; site?: Site; showSite: boolean }) {
  const standing = standingOf(props.item);
  return (
    <>
      {props.showSite && props.site && <span class="badge site"><bdi>{props.site.name}</bdi></span>}
      {standing && <span class="badge banned">{t('queue.standing', { standing })}</span>}
    </>
  );
}

/** Why a comment is in the queue: what the spam checks saw (or that the site holds such comments), and its flags. */
export function WhyHere(props: { item: QueueItem; site?: Site }) {
  const { item, site } = props;
  const reasons = item.spam_reasons;
  // Held with no check's reason: the site holds such comments for approval (or a moderator held it).
  const premoderated = item.status === 'pending' && reasons.length === 0 && site && (site.moderation_mode === 'all' || (site.moderation_mode === 'guests' && item.author.kind === 'guest'));
  return (
    <>
      {premoderated && (
        <ul class="why" aria-label={t('queue.why')}>
          <li>{t('queue.reason.premoderated', { mode: site.moderation_mode })}</li>
        </ul>
      )}
      {reasons.length > 0 && (
        <ul class="why" aria-label={t('queue.why')}>
          {reasons.map((reason, i) => (
            <li key={i}>
              {reasonText(reason)}
              {similarOf(reason).length > 0 && (
                <ul class="similar">
                  {similarOf(reason).map((similar) => (
                    <li key={similar.comment_id}>{t('queue.reason.similar', { decision: similar.decision, excerpt: similar.excerpt })}</li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
      {item.flags.count > 0 && (
        <p class="flags">
          <strong>{t('queue.flags', { count: item.flags.count })}</strong>{' '}
          {new Intl.ListFormat(currentLocale(), { type: 'unit' }).format(flagGroups(item.flags.reasons).map((group) => t('queue.flagGroup', group)))}
        </p>
      )}
    </>
  );
}
