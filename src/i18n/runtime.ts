import type { MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { IntlMessageFormat } from 'intl-messageformat';

/** A message as pages hold it: plain text, or the syntax tree compile.ts made of its ICU text. */
export type Message = string | MessageFormatElement[];
export type Values = Record<string, string | number>;

/** Per tree and locale: an English tree stands in for a key a locale's file lacks, in any locale. */
const formatters = new WeakMap<object, Map<string, IntlMessageFormat>>();
const fromText = new Map<string, IntlMessageFormat>();

/**
 * Formats a message in a page (widget, dashboard) with the locale's plural rules and number formats.
 * Bundles hold compiled messages; ICU text (tests, which run the sources) is parsed here, where the
 * parser is present.
 */
export function formatMessage(locale: string, message: Message, values?: Values): string {
  if (typeof message === 'string' && !message.includes('{')) return message;
  let formatter: IntlMessageFormat | undefined;
  if (typeof message === 'string') {
    const key = `${locale}\u0000${message}`;
    formatter = fromText.get(key);
    if (!formatter) fromText.set(key, (formatter = new IntlMessageFormat(message, locale, undefined, { ignoreTag: true })));
  } else {
    let byLocale = formatters.get(message);
    if (!byLocale) formatters.set(message, (byLocale = new Map()));
    formatter = byLocale.get(locale);
    if (!formatter) byLocale.set(locale, (formatter = new IntlMessageFormat(message, locale)));
  }
  return String(formatter.format(values));
}
