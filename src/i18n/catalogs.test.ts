import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LOCALES } from './locales.ts';
import { translationProblems, type Catalog } from './messages.ts';

/** Every message file set: a folder with `en.json` and one file per locale beside it. */
const CATALOGS = ['src/widget/locales', 'src/widget/locales/dialogs', 'src/widget/locales/bell', 'src/widget/locales/elements', 'src/mail/locales', 'src/dashboard/locales', 'src/recent/locales'];

const read = (folder: string, locale: string): Catalog | null => {
  const file = `${folder}/${locale}.json`;
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Catalog) : null;
};

describe.each(CATALOGS)('the messages of %s', (folder) => {
  const english = read(folder, 'en')!;

  it('are written in English in ICU MessageFormat, with the plurals English needs', () => {
    expect(english).not.toBeNull();
    const problems = Object.entries(english).flatMap(([key, text]) => translationProblems(text, text, 'en').map((problem) => `${key} ${problem}`));
    expect(problems).toEqual([]);
  });

  it.each(LOCALES.filter((locale) => locale !== 'en'))('are all in %s, with the English placeholders and every plural form the language has', (locale) => {
    const translated = read(folder, locale);
    expect(translated, `${folder}/${locale}.json is missing`).not.toBeNull();
    const problems = [
      ...Object.keys(english).filter((key) => !(key in translated!)).map((key) => `${key} is missing`),
      ...Object.keys(translated!).filter((key) => !(key in english)).map((key) => `${key} is not an English key`),
      ...Object.entries(translated!).filter(([, text]) => typeof text !== 'string' || text.trim() === '').map(([key]) => `${key} is empty`),
      ...Object.entries(translated!)
        .filter(([key, text]) => key in english && typeof text === 'string')
        .flatMap(([key, text]) => translationProblems(english[key], text, locale).map((problem) => `${key} ${problem}`)),
    ];
    expect(problems).toEqual([]);
  });
});
