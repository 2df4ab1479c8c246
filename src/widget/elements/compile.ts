import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { PARSE_OPTIONS, type Catalog } from '../../i18n/compile.ts';

/**
 * A message as the element scripts hold it, smaller than the widget's syntax trees (which need
 * intl-messageformat): plain text; text and placeholders alternating (`["", "author", " on ", "title", ""]`);
 * or a plural's forms by category (and `=n`), with `#` for the number.
 */
export type ElementMessage = string | string[] | Record<string, string>;
export type ElementWords = Record<string, ElementMessage>;

function literalOf(elements: MessageFormatElement[], text: string): string {
  return elements
    .map((element) => {
      if (element.type === TYPE.literal) return element.value;
      if (element.type === TYPE.pound) return '#';
      throw new Error(`${text}: a plural form of the element scripts holds text and # only`);
    })
    .join('');
}

/** Compiles one message; the element scripts take text, simple placeholders, or one plural of text and `#`. */
export function compileElementMessage(text: string): ElementMessage {
  const elements = parse(text, PARSE_OPTIONS);
  const [only] = elements;
  if (elements.length === 1 && only.type === TYPE.plural) {
    return Object.fromEntries(Object.entries(only.options).map(([category, option]) => [category, literalOf(option.value, text)]));
  }
  if (elements.every((element) => element.type === TYPE.literal)) return literalOf(elements, text);
  const parts: string[] = [''];
  for (const element of elements) {
    if (element.type === TYPE.literal) parts[parts.length - 1] += element.value;
    else if (element.type === TYPE.argument) parts.push(element.value, '');
    else throw new Error(`${text}: the element scripts take text, {placeholders}, or one plural`);
  }
  return parts;
}

/** The given keys of a message file, compiled for the element scripts. */
export function compileElementWords(catalog: Catalog, keys: string[]): ElementWords {
  return Object.fromEntries(keys.filter((key) => key in catalog).map((key) => [key, compileElementMessage(catalog[key])]));
}
