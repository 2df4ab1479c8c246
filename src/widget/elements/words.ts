import { matchLocale } from '../../i18n/locales.ts';
import type { ElementMessage, ElementWords } from './compile.ts';

/** The element scripts' messages in every locale, compiled small at build time (compile.ts). */
declare const PARLEY_ELEMENT_WORDS: Record<string, ElementWords>;

/** The language an element speaks: its own `lang`, else the closest `lang` around it (the page's), else English. */
export function localeOf(element: Element): string {
  return matchLocale(element.closest('[lang]')?.getAttribute('lang')) ?? 'en';
}

/** A message as text, its plural chosen by the locale's rules and `#` written as the locale writes numbers. */
export function say(locale: string, key: string, count = 0): string {
  const message = (PARLEY_ELEMENT_WORDS[locale]?.[key] ?? PARLEY_ELEMENT_WORDS.en[key]) as ElementMessage;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return message.join('');
  const form = message[`=${count}`] ?? message[new Intl.PluralRules(locale).select(count)] ?? message.other;
  return form.replace('#', new Intl.NumberFormat(locale).format(count));
}

/**
 * A message with placeholders as nodes: its literal parts as text, each placeholder the node given
 * for it (so a name or title is never read as markup, and can be styled on its own).
 */
export function sayWith(locale: string, key: string, nodes: Record<string, Node>): Node[] {
  const message = (PARLEY_ELEMENT_WORDS[locale]?.[key] ?? PARLEY_ELEMENT_WORDS.en[key]) as string | string[];
  const parts = typeof message === 'string' ? [message] : message;
  return parts.map((part, index) => (index % 2 === 1 ? nodes[part] : document.createTextNode(part)));
}

/** The URL Parley is served at: where the element's script came from (currentScript is only set while it first runs). */
export function serverOfScript(): string {
  const script = document.currentScript as HTMLScriptElement | null;
  return script?.src ? new URL('.', script.src).href.replace(/\/embed\/$/, '').replace(/\/$/, '') : location.origin;
}

/** The page the element stands for when it names none, as the thread widget reads it. */
export function threadUrlOf(element: Element): string {
  return element.getAttribute('thread-url') || location.href.split('#')[0];
}
