import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { IntlMessageFormat } from 'intl-messageformat';
import { PARSE_OPTIONS, type Catalog } from './compile.ts';
import { LOCALES, type Locale } from './locales.ts';

export type { Catalog };

const formatters = new Map<string, IntlMessageFormat>();

/** Formats ICU MessageFormat text for a locale on the server (mails, pages); formatters are kept per text. */
export function formatMessage(locale: string, message: string, values?: Record<string, string | number>): string {
  const key = `${locale}\u0000${message}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new IntlMessageFormat(message, locale, undefined, { ignoreTag: true });
    formatters.set(key, formatter);
  }
  return String(formatter.format(values));
}

/** Every argument a message uses (`{name}`, `{count, plural, …}`), in and out of plural branches. */
export function argumentsOf(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    into.add(element.value);
    if (element.type === TYPE.plural || element.type === TYPE.select) for (const option of Object.values(element.options)) argumentsOf(option.value, into);
    if (element.type === TYPE.tag) argumentsOf(element.children, into);
  }
  return into;
}

/** The plural categories a cardinal plural lacks in `locale` (an exact `=1` stands in for no category). */
function missingPluralCategories(elements: MessageFormatElement[], locale: string): string[] {
  const required = new Intl.PluralRules(locale).resolvedOptions().pluralCategories as string[];
  const missing: string[] = [];
  for (const element of elements) {
    if (element.type === TYPE.plural) {
      if (element.pluralType !== 'ordinal') missing.push(...required.filter((category) => !(category in element.options)).map((category) => `${element.value}: ${category}`));
      for (const option of Object.values(element.options)) missing.push(...missingPluralCategories(option.value, locale));
    } else if (element.type === TYPE.select) {
      for (const option of Object.values(element.options)) missing.push(...missingPluralCategories(option.value, locale));
    }
  }
  return missing;
}

/**
 * What is wrong with `text` as `locale`'s wording of `english`: it does not parse, uses an argument
 * the English lacks or lacks one it uses, or misses a plural category the language needs. Empty when
 * it is right. Checks the shipped translations and a site's own words alike.
 */
export function translationProblems(english: string, text: string, locale: string): string[] {
  let elements: MessageFormatElement[];
  try {
    elements = parse(text, PARSE_OPTIONS);
  } catch (error) {
    return [`is not ICU MessageFormat: ${(error as Error).message}`];
  }
  const wanted = argumentsOf(parse(english, PARSE_OPTIONS));
  const used = argumentsOf(elements);
  const problems = [
    ...[...used].filter((name) => !wanted.has(name)).map((name) => `uses {${name}}, which the English does not`),
    ...[...wanted].filter((name) => !used.has(name)).map((name) => `lacks {${name}}, which the English uses`),
  ];
  const missing = missingPluralCategories(elements, locale);
  if (missing.length > 0) problems.push(`lacks the plural categories ${locale} needs: ${missing.join(', ')}`);
  return problems;
}

/** The locales of the language list, without English: what a translation has to cover. */
export const TRANSLATED_LOCALES: Locale[] = LOCALES.filter((locale) => locale !== 'en');
