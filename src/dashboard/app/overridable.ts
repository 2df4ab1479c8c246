import { isArgumentElement, isDateElement, isLiteralElement, isNumberElement, isPluralElement, isPoundElement, isSelectElement, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import type { Message } from '../../i18n/runtime.ts';
import mail from '../../mail/locales/en.json' with { type: 'json' };
import dialogs from '../../widget/locales/dialogs/en.json' with { type: 'json' };
import widget from '../../widget/locales/en.json' with { type: 'json' };

/** Where a message shows: the widget, its sign-in and account dialogs, or a mail and the pages mails link to. */
export type Surface = 'widget' | 'dialogs' | 'mail';

/** A message a site may reword (the server's OVERRIDABLE, src/sites/strings.ts), with Parley's English as ICU text. */
export interface Overridable {
  key: string;
  surface: Surface;
  english: string;
}

/** Text as ICU writes it: braces (and # in a plural) quoted, an apostrophe that would start a quote doubled. */
const literal = (text: string, inPlural: boolean) =>
  text.replace(/'(?=['{}#]|$)|[{}#]/g, (found) => (found === "'" ? "''" : found === '#' && !inPlural ? found : `'${found}'`));

/**
 * ICU text again from the syntax tree the bundle holds, spaced as the message files are
 * (`{count, plural, one {…} other {…}}`), so that an admin copies placeholders as written. Parley's
 * messages use text, arguments, number and date formats, plural and select.
 */
function icuText(elements: MessageFormatElement[], inPlural: boolean): string {
  return elements
    .map((element) => {
      if (isLiteralElement(element)) return literal(element.value, inPlural);
      if (isPoundElement(element)) return '#';
      if (isArgumentElement(element)) return `{${element.value}}`;
      if (isPluralElement(element) || isSelectElement(element)) {
        const plural = isPluralElement(element);
        const kind = plural ? (element.pluralType === 'ordinal' ? 'selectordinal' : 'plural') : 'select';
        const offset = plural && element.offset ? ` offset:${element.offset}` : '';
        const options = Object.entries(element.options).map(([name, option]) => `${name} {${icuText(option.value, inPlural || plural)}}`);
        return `{${element.value}, ${kind},${offset} ${options.join(' ')}}`;
      }
      // Tags are text in Parley's messages (compiled with ignoreTag): what is left is a number, date or time.
      const format = isNumberElement(element) ? 'number' : isDateElement(element) ? 'date' : 'time';
      const style = 'style' in element && typeof element.style === 'string' ? `, ${element.style}` : '';
      return `{${element.value}, ${format}${style}}`;
    })
    .join('');
}

/** A message's ICU text: bundled, the message files arrive compiled (src/i18n/compile.ts); run from source, as text. */
export const messageText = (message: Message) => (typeof message === 'string' ? message : icuText(message, false));

const SURFACES: Array<[Surface, Record<string, Message>]> = [
  ['widget', widget],
  ['dialogs', dialogs],
  ['mail', mail],
];

export const OVERRIDABLE: Overridable[] = SURFACES.flatMap(([surface, catalog]) => Object.entries(catalog).map(([key, message]) => ({ key, surface, english: messageText(message) })));
