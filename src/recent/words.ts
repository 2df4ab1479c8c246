import { readdirSync } from 'node:fs';
import { sourcePath } from '../http/bundle.ts';
import { readCatalog } from '../i18n/compile.ts';
import type { Locale } from '../i18n/locales.ts';
import { formatMessage, type Catalog } from '../i18n/messages.ts';
import english from './locales/en.json' with { type: 'json' };

/** A message of the feeds, by its key in locales/en.json. */
export type FeedKey = keyof typeof english;
export type FeedWords = (key: FeedKey, values: Record<string, string>) => string;

// From src/recent or, bundled, from dist/ (see sourcePath): read once at start.
const FOLDER = `${sourcePath(import.meta.url, 'recent/locales')}/`;
const CATALOGS = new Map<string, Catalog>(
  readdirSync(FOLDER)
    .filter((file) => file.endsWith('.json'))
    .map((file) => [file.slice(0, -'.json'.length), readCatalog(`${FOLDER}${file}`)]),
);

/** The feeds' words in `locale` (the site's language), English where a translation lacks a key. */
export function feedWords(locale: Locale): FeedWords {
  const translated = CATALOGS.get(locale);
  return (key, values) => {
    const text = translated?.[key];
    return text === undefined ? formatMessage('en', english[key], values) : formatMessage(locale, text, values);
  };
}
