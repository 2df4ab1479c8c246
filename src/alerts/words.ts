import { readdirSync } from 'node:fs';
import { sourcePath } from '../http/bundle.ts';
import { readCatalog } from '../i18n/compile.ts';
import type { Locale } from '../i18n/locales.ts';
import { formatMessage, type Catalog } from '../i18n/messages.ts';

// Chat alerts are read by a site's staff, so their words are the dashboard's (keys `alerts.message.*`).
const FOLDER = `${sourcePath(import.meta.url, 'dashboard/locales')}/`;

/** Every dashboard locale file, read once at start, keeping only the alerts' messages. */
const CATALOGS = new Map<string, Catalog>(
  readdirSync(FOLDER)
    .filter((file) => file.endsWith('.json'))
    .map((file) => {
      const catalog = readCatalog(`${FOLDER}${file}`);
      const messages = Object.fromEntries(Object.entries(catalog).filter(([key]) => key.startsWith('alerts.message.')));
      return [file.slice(0, -'.json'.length), messages];
    }),
);

export type AlertMessageKey = 'held' | 'flagged' | 'first' | 'test' | 'open';

/** A chat alert's message in the site's language, else in English. */
export function alertWords(locale: Locale | null): (key: AlertMessageKey, values?: Record<string, string | number>) => string {
  const translated = locale === null ? undefined : CATALOGS.get(locale);
  const english = CATALOGS.get('en')!;
  return (key, values) => {
    const text = translated?.[`alerts.message.${key}`];
    if (text !== undefined) return formatMessage(locale!, text, values);
    return formatMessage('en', english[`alerts.message.${key}`]!, values);
  };
}
