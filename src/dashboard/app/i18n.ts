/// <reference lib="dom" />
import type { ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { direction, LOCALES, pickLocale, type Locale } from '../../i18n/locales.ts';
import { formatMessage, type Message, type Values } from '../../i18n/runtime.ts';
import english from '../locales/en.json' with { type: 'json' };

/** Every message the dashboard shows, by its key in locales/en.json: a wrong key does not compile. */
export type MessageKey = keyof typeof english;
export type { Locale, Values };
type Catalogue = Partial<Record<MessageKey, Message>>;

// The bundle holds English compiled (see src/i18n/compile.ts): its type above is the source's.
const ENGLISH = english as unknown as Record<MessageKey, Message>;

let current: Locale = 'en';
let messages: Catalogue = ENGLISH;
let generation = 0;
const listeners = new Set<() => void>();
const loading = new Map<Locale, Promise<Catalogue | null>>();

/** A message in the language the dashboard speaks now; a key its file lacks yet is said in English. */
export function t(key: MessageKey, values?: Values): string {
  const message = messages[key];
  return message === undefined ? formatMessage('en', ENGLISH[key], values) : formatMessage(current, message, values);
}

// Elements go through formatting as private-use marks (never in a message), then take their places.
const MARK = '\uE000';
const MARKED = new RegExp(`${MARK}(\\d+)${MARK}`);

/**
 * A message with elements inside it (a link, a code sample) as children to draw: the sentence stays
 * one message, so a translation may put them anywhere. Values that are not elements format as in `t`.
 */
export function tx(key: MessageKey, values: Record<string, string | number | ComponentChild>): ComponentChild[] {
  const elements: ComponentChild[] = [];
  const plain: Values = {};
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string' || typeof value === 'number') plain[name] = value;
    else plain[name] = `${MARK}${elements.push(value) - 1}${MARK}`;
  }
  return t(key, plain)
    .split(MARKED)
    .map((part, index) => (index % 2 === 1 ? elements[Number(part)] : part));
}

export const currentLocale = (): Locale => current;

/** The current locale; the component draws again when the dashboard changes language. */
export function useLocale(): Locale {
  const [, redraw] = useState(0);
  useEffect(() => {
    const listener = () => redraw((n) => n + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return current;
}

/** The language the browser asks for first among Parley's, else English. */
export const browserLocale = (): Locale => pickLocale(...navigator.languages);

/**
 * Speaks `saved` (a staff member's choice) or, when null, the browser's language. Other languages'
 * files are fetched once each, only when needed; without one the dashboard stays in English, and the
 * page's `lang` and `dir` say which language its words are in.
 */
export async function applyLanguage(saved: string | null | undefined): Promise<void> {
  const wanted = pickLocale(saved, ...navigator.languages);
  const mine = ++generation;
  const table = await catalogue(wanted);
  if (mine !== generation) return;
  const [locale, found] = table ? [wanted, table] : (['en', ENGLISH] as const);
  document.documentElement.lang = locale;
  document.documentElement.dir = direction(locale);
  if (locale === current && found === messages) return;
  current = locale;
  messages = found;
  listeners.forEach((listener) => listener());
}

/** The versions of the language files this server has (the page lists them: see ../page.ts). */
function versions(): Map<string, string> {
  const listed = document.querySelector('meta[name="parley-locales"]')?.getAttribute('content') ?? '';
  return new Map(listed.split(' ').filter(Boolean).map((entry) => entry.split(':') as [string, string]));
}

function catalogue(locale: Locale): Promise<Catalogue | null> {
  if (locale === 'en') return Promise.resolve(ENGLISH);
  const version = versions().get(locale);
  if (!version) return Promise.resolve(null);
  let pending = loading.get(locale);
  if (!pending) {
    pending = fetch(`/dashboard/assets/locales/${locale}.json?v=${encodeURIComponent(version)}`)
      .then((response) => (response.ok ? (response.json() as Promise<Catalogue>) : null))
      .catch(() => null);
    // A failed fetch is tried again on the next change of language, not remembered.
    void pending.then((table) => table ?? loading.delete(locale));
    loading.set(locale, pending);
  }
  return pending;
}

/** A language by its own name ("Deutsch", "العربية"), for choosing one. */
export function localeName(locale: Locale): string {
  return new Intl.DisplayNames([locale], { type: 'language' }).of(locale) ?? locale;
}

export const LANGUAGES: readonly Locale[] = LOCALES;

// Intl formatters are costly to make: one per locale, kind and options.
const formatters = new Map<string, unknown>();
function cached<F>(kind: string, options: object, make: () => F): F {
  const key = `${kind}\u0000${current}\u0000${JSON.stringify(options)}`;
  let formatter = formatters.get(key) as F | undefined;
  if (!formatter) formatters.set(key, (formatter = make()));
  return formatter;
}

type When = string | number | Date;

/** A date and time in the current locale (medium date, short time unless told otherwise). */
export function dateTime(value: When, options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' }): string {
  return cached('date', options, () => new Intl.DateTimeFormat(current, options)).format(new Date(value));
}

/** A date alone in the current locale. */
export const date = (value: When, options: Intl.DateTimeFormatOptions = { dateStyle: 'medium' }) => dateTime(value, options);

/** A number in the current locale (digits, separators). */
export function number(value: number, options: Intl.NumberFormatOptions = {}): string {
  return cached('number', options, () => new Intl.NumberFormat(current, options)).format(value);
}

/** Items as one list in the current locale ("a, b, c"). */
export function list(items: string[]): string {
  return cached('list', {}, () => new Intl.ListFormat(current, { type: 'unit', style: 'short' })).format(items);
}

/** "3 minutes ago" for the last day, the date and time before that. */
export function relativeTime(value: When): string {
  const seconds = (Date.now() - new Date(value).getTime()) / 1000;
  const relative = cached('relative', {}, () => new Intl.RelativeTimeFormat(current, { numeric: 'auto' }));
  if (seconds < 60) return relative.format(0, 'second');
  if (seconds < 3600) return relative.format(-Math.floor(seconds / 60), 'minute');
  if (seconds < 86400) return relative.format(-Math.floor(seconds / 3600), 'hour');
  return dateTime(value);
}
