import { readdirSync } from 'node:fs';
import { sourcePath } from '../http/bundle.ts';
import { readCatalog, type Catalog } from '../i18n/compile.ts';
import { pickLocale, type Locale } from '../i18n/locales.ts';
import type { Site } from '../sites/repository.ts';
import { translator, type Translate } from '../widget/client/strings.ts';

// From src/thread-html or, bundled, from dist/: the widget's message files stay in the source tree.
const FOLDER = `${sourcePath(import.meta.url, 'widget/locales')}/`;

/** The widget's catalogues, read once at start, so the server-rendered thread says what the widget says. */
const CATALOGS = new Map<string, Catalog>(
  readdirSync(FOLDER)
    .filter((file) => file.endsWith('.json'))
    .map((file) => [file.slice(0, -'.json'.length), readCatalog(`${FOLDER}${file}`)]),
);

/**
 * The language of a thread's HTML: the one asked for (`lang`), else the site's, else the reader's
 * browser's, else English; a language Parley does not speak is passed over.
 */
export function threadLocale(lang: string | undefined, site: Site, acceptLanguage: Locale | null): Locale {
  return pickLocale(lang, site.language, acceptLanguage);
}

/** The widget's words in `locale`, laid as the widget lays them: English, the locale's file, the site's own. */
export function threadWords(locale: Locale, site: Site): Translate {
  return translator(locale, { ...CATALOGS.get('en'), ...CATALOGS.get(locale), ...site.strings[locale] });
}
