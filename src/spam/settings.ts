import { Type, type Static } from 'typebox';
import { invalid } from '../errors.ts';
import { SIGNALS_KEPT } from './signal-store.ts';

export const PROOF_OF_WORK_MODES = ['off', 'always', 'velocity'] as const;
export const CLASSIFIER_MODES = ['off', 'hold_above'] as const;

/** The learning classifier's phase (src/spam/classifier). */
const ClassifierSettings = Type.Object({
  mode: Type.Enum([...CLASSIFIER_MODES], {
    description: "off, or hold_above: hold a comment the site's classifier scores at or above threshold (the default), once it has learnt min_examples of each kind",
  }),
  threshold: Type.Number({ minimum: 0.5, maximum: 0.999, description: 'The score, 0.5 to 0.999, from which a comment is held (default 0.9)' }),
  min_examples: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    description: "Decisions of each kind (spam, and approved) the classifier learns from moderators before it holds anything (default 20)",
  }),
});

const Word = Type.String({ minLength: 1, maxLength: 50 });
const WordList = (description: string) => Type.Array(Word, { maxItems: 500, description });
const Count = (maximum: number, description: string) => Type.Integer({ minimum: 0, maximum, description });

/**
 * Every threshold of the spam pipeline (src/spam/pipeline.ts), as the site view shows it. A site
 * keeps only what was set for it; the rest is DEFAULT_SPAM_SETTINGS, so a changed default reaches
 * every site that did not choose its own.
 */
export const SpamSettingsSchema = Type.Object({
  enabled: Type.Boolean({ description: 'Whether new comments and edits go through the checks at all (default true)' }),
  form_check: Type.Boolean({
    description: "Guests only: hold a comment without a valid form token (GET /v1/widget gives one) or with the widget's hidden field filled (default true)",
  }),
  min_submit_seconds: Count(600, 'Guests only: hold a comment sent sooner than this after its form token was issued (default 2; 0: no minimum)'),
  duplicates: Type.Boolean({ description: 'Hold the same text from the same author (or, for guests, the same IP range) within 24 hours (default true)' }),
  duplicate_authors: Count(1000, 'Hold every copy when this many authors post the same text on the site within an hour (default 3; 0: off)'),
  banned_words: WordList('Refuse a comment holding one of these words or a disguised form of it (l33t, look-alike letters, repeated letters)'),
  suspect_words: WordList('Hold a comment holding one of these words or a disguised form of it'),
  max_links: Count(1000, 'Hold a comment with more links than this (default 3)'),
  links_min_approved: Count(1000, 'Hold a comment with any link from an author with fewer approved comments than this; guests have none (default 1; 0: off)'),
  // A window is counted in the instance's log of screened comments, which holds SIGNALS_KEPT.
  ip_range_per_10_minutes: Count(SIGNALS_KEPT, 'Guests only: hold comments past this many from one /24 (IPv4) or /64 (IPv6) in 10 minutes (default 15; 0: off)'),
  thread_per_minute: Count(SIGNALS_KEPT, 'Hold comments past this many in one thread in a minute (default 30; 0: off)'),
  site_per_minute: Count(SIGNALS_KEPT, 'Hold comments past this many on the site in a minute (default 120; 0: off)'),
  history_min_comments: Count(1000, 'Hold comments of an author with at least this many comments on the site, more than half of them removed or spam (default 3; 0: off)'),
  proof_of_work: Type.Enum([...PROOF_OF_WORK_MODES], {
    description: 'Guests only: require an ALTCHA proof of work, never (off, the default), on every comment (always), or while velocity holds comments (velocity)',
  }),
  classifier: ClassifierSettings,
  guest_votes: Type.Boolean({
    description:
      'Let readers without a credential vote and react: each IP range (/24 IPv4, /56 IPv6) counts as one voter per comment, and each guest address is rate limited (default false: voting needs a key or a session)',
  }),
});

export type SpamSettings = Static<typeof SpamSettingsSchema>;

export const DEFAULT_SPAM_SETTINGS: SpamSettings = deepFreeze({
  enabled: true,
  form_check: true,
  min_submit_seconds: 2,
  duplicates: true,
  duplicate_authors: 3,
  banned_words: [],
  suspect_words: [],
  max_links: 3,
  links_min_approved: 1,
  ip_range_per_10_minutes: 15,
  thread_per_minute: 30,
  site_per_minute: 120,
  history_min_comments: 3,
  proof_of_work: 'off',
  classifier: { mode: 'hold_above', threshold: 0.9, min_examples: 20 },
  guest_votes: false,
});

/** What PATCH /api/sites/:id takes: any of the settings (the classifier's too, one by one); the others stay as they are. */
export const SpamSettingsPatch = Type.Partial(Type.Object({ ...SpamSettingsSchema.properties, classifier: Type.Partial(ClassifierSettings) }));
export type SpamSettingsPatch = Static<typeof SpamSettingsPatch>;

/** Decoded columns kept, by their text: a site's row is read with every comment, its settings change rarely. */
const DECODED_KEPT = 1_000;
const decoded = new Map<string, SpamSettings>();

/**
 * A site's settings from its column: what was set for it over the defaults. Decoded once per
 * distinct column and shared, frozen (the word lists' matchers are kept by their arrays, words.ts).
 */
export function decodeSpamSettings(column: string): SpamSettings {
  if (column === '{}') return DEFAULT_SPAM_SETTINGS;
  let settings = decoded.get(column);
  if (settings === undefined) {
    const set = JSON.parse(column) as Partial<SpamSettings>;
    settings = deepFreeze({ ...DEFAULT_SPAM_SETTINGS, ...set, classifier: { ...DEFAULT_SPAM_SETTINGS.classifier, ...set.classifier } });
    if (decoded.size >= DECODED_KEPT) decoded.clear();
    decoded.set(column, settings);
  }
  return settings;
}

function deepFreeze(settings: SpamSettings): SpamSettings {
  Object.freeze(settings.banned_words);
  Object.freeze(settings.suspect_words);
  Object.freeze(settings.classifier);
  return Object.freeze(settings);
}

/** A word as lists keep it: trimmed, lower-cased, NFKC; refused when nothing of it is a letter or digit. */
function cleanWords(words: string[], path: string): string[] {
  return [
    ...new Set(
      words.map((word, i) => {
        const clean = word.normalize('NFKC').trim().toLowerCase();
        if (!/[\p{L}\p{N}]/u.test(clean)) throw invalid(`${path}/${i}`, 'must hold a letter or a digit');
        return clean;
      }),
    ),
  ];
}

/** The column's new value: the settings the site had set, with the patch's over them. */
export function encodeSpamSettings(column: string, patch: SpamSettingsPatch): string {
  const kept = JSON.parse(column) as Partial<SpamSettings>;
  const changed = { ...patch, ...(patch.classifier && { classifier: { ...kept.classifier, ...patch.classifier } }) };
  if (patch.banned_words) changed.banned_words = cleanWords(patch.banned_words, 'body/spam/banned_words');
  if (patch.suspect_words) changed.suspect_words = cleanWords(patch.suspect_words, 'body/spam/suspect_words');
  return JSON.stringify({ ...kept, ...changed });
}
