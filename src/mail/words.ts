import { readdirSync } from 'node:fs';
import { sourcePath } from '../http/bundle.ts';
import { readCatalog } from '../i18n/compile.ts';
import { direction, pickLocale, type Locale } from '../i18n/locales.ts';
import { formatMessage, type Catalog } from '../i18n/messages.ts';
import type { SiteStrings } from '../sites/strings.ts';
import english from './locales/en.json' with { type: 'json' };

/** A message of the mails and their pages, by its key in locales/en.json. */
export type MailKey = keyof typeof english;
export type MailValues = Record<string, string | number>;
/** Says a message in one language: a site's own words first, then Parley's, then English. */
export type Words = (key: MailKey, values?: MailValues) => string;

// From src/mail or, bundled, from dist/: the message files stay in the source tree (see sourcePath).
const FOLDER = `${sourcePath(import.meta.url, 'mail/locales')}/`;

/** Every locale file of the folder, read once at start: a translation added later needs a restart. */
const CATALOGS = new Map<string, Catalog>(
  readdirSync(FOLDER)
    .filter((file) => file.endsWith('.json'))
    .map((file) => [file.slice(0, -'.json'.length), readCatalog(`${FOLDER}${file}`)]),
);

/**
 * The words of the mails in `locale`, key by key: the site's own wording in that language, else
 * Parley's translation, else (a translation that lacks the key) the English, the site's or Parley's,
 * formatted with English rules so its plural forms match.
 */
export function mailWords(locale: Locale, siteStrings: SiteStrings = {}): Words {
  const own = siteStrings[locale];
  const translated = CATALOGS.get(locale);
  return (key, values) => {
    const text = own?.[key] ?? translated?.[key];
    if (text !== undefined) return formatMessage(locale, text, values);
    return formatMessage('en', siteStrings.en?.[key] ?? english[key], values);
  };
}

/** What a mail or page is written in: its locale, direction and words. */
export interface Voice {
  locale: Locale;
  dir: 'ltr' | 'rtl';
  say: Words;
}

/**
 * The voice of the first of `languages` Parley speaks (the recipient's, the request's, the site's…),
 * else English, with the site's own words laid over Parley's.
 */
export function voiceOf(languages: Array<string | null | undefined>, siteStrings?: SiteStrings): Voice {
  const locale = pickLocale(...languages);
  return { locale, dir: direction(locale), say: mailWords(locale, siteStrings) };
}

/** A list as the language writes one ("a, b and c"), for flag reasons. */
export function listOf(locale: Locale, items: string[]): string {
  return new Intl.ListFormat(locale, { type: 'conjunction' }).format(items);
}
