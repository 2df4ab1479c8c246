import type { Locale } from '../../i18n/locales.ts';
import type { Messages } from './strings.ts';

const files = new Map<string, Promise<Messages>>();

/**
 * A locale's messages, the widget's and its dialogs' compiled in one file (`<folder>/<locale>.json`,
 * beside embed.js, named by a hash of every locale file: cached for good), fetched once a page.
 * English is in embed.js. A file that cannot be had leaves the widget in English, and is asked for
 * again on the widget's next load.
 */
export function localeFile(folder: string, locale: Locale): Promise<Messages> {
  if (locale === 'en') return Promise.resolve({});
  let file = files.get(locale);
  if (!file) {
    file = fetch(`${folder}/${locale}.json`, { credentials: 'omit' })
      .then((response) => (response.ok ? (response.json() as Promise<Messages>) : {}))
      .catch(() => ({}))
      .then((messages) => {
        if (Object.keys(messages).length === 0) files.delete(locale);
        return messages;
      });
    files.set(locale, file);
  }
  return file;
}
