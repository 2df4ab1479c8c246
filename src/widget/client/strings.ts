import { TYPE } from '@formatjs/icu-messageformat-parser';
import { formatMessage, type Message, type Values } from '../../i18n/runtime.ts';
import { matchLocale, type Locale } from '../../i18n/locales.ts';
import ENGLISH from '../locales/en.json' with { type: 'json' };

/** The widget's messages, by key (src/widget/locales/en.json); bundled, they arrive compiled. */
export type WidgetKey = keyof typeof ENGLISH;
/** The dialogs' messages (the bell's panel's among them), which travel in the dialogs' module, not in embed.js. */
export type DialogKey = keyof typeof import('../locales/dialogs/en.json') | keyof typeof import('../locales/bell/en.json');
/** A table of messages: the locale file's, the site's, a page's own, laid over English. */
export type Messages = Record<string, Message>;

/** Formats one message of a table in the reader's language. */
export interface Translate<K extends string = WidgetKey> {
  (key: K, values?: Values): string;
  /** Whether a key named at run time (`badge_${label}`) is a message. */
  has(key: string): key is K;
}

export function translator<K extends string>(locale: string, messages: Messages): Translate<K> {
  const t = (key: K, values?: Values) => formatMessage(locale, messages[key], values);
  return Object.assign(t, { has: (key: string): key is K => Object.hasOwn(messages, key) });
}

/** Messages a page's script set per locale (`ParleyComments.setStrings`), laid over everything else. */
const pageTables = new Map<string, Messages>();

/**
 * A page's own words for a language: text shown as given, with simple placeholders (`Reply to
 * {name}`). embed.js holds no ICU parser: plurals are reworded in the site's settings, which the
 * server compiles. A tag Parley does not speak keeps its words under its own name, where no widget looks.
 */
export function setStrings(lang: string, strings: Record<string, string>): void {
  const locale = matchLocale(lang) ?? lang.toLowerCase();
  const messages: Messages = {};
  for (const [key, text] of Object.entries(strings)) {
    const message = pageMessage(text);
    if (message !== null) messages[key] = message;
  }
  pageTables.set(locale, { ...pageTables.get(locale), ...messages });
}

/**
 * A page's text as the syntax tree runtime.ts formats: `{name}` is an argument, the rest is text.
 * Null for other ICU syntax (a plural), which the widget cannot read: that message keeps its words.
 */
function pageMessage(text: string): Message | null {
  const parts = text.split(/\{(\w+)\}/);
  if (parts.some((part, index) => index % 2 === 0 && /[{}]/.test(part))) return null;
  if (parts.length === 1) return text;
  return parts.map((value, index) => (index % 2 === 1 ? { type: TYPE.argument, value } : { type: TYPE.literal, value }));
}

/**
 * Every message a widget shows in `locale`: English under the locale file's (a key it lacks stays
 * English), the site's own words, then the page's. Dialog keys ride along for the dialogs' module.
 */
export function wordsFor(locale: Locale, file: Messages, site: Messages): Messages {
  return { ...ENGLISH, ...file, ...site, ...pageTables.get(locale) };
}

export interface ProblemLike {
  status: number;
  code: string;
  detail: string;
  retryAfter: number | null;
  errors?: Array<{ path: string; message: string }>;
}

/** The inline message for a failed call: the problem's code picks the words, its details fill them in. */
export function problemMessage(problem: ProblemLike, t: (key: WidgetKey, values?: Values) => string): string {
  switch (problem.code) {
    case 'rate_limited':
      if (problem.retryAfter === null) return t('error_rate_limited_later');
      // Limits per hour (sign-in mails) can ask for a long wait: minutes read better than thousands of seconds.
      return problem.retryAfter < 120
        ? t('error_rate_limited', { seconds: problem.retryAfter })
        : t('error_rate_limited_minutes', { minutes: Math.ceil(problem.retryAfter / 60) });
    case 'validation_failed':
    case 'invalid_json': {
      // The server's own words (English), given whole as the message's detail.
      const detail = problem.errors?.length ? problem.errors.map((e) => `${e.path.split('/').pop()} ${e.message}`).join('; ') : problem.detail;
      return t('error_validation_failed', { detail });
    }
    case 'unauthorized':
    case 'banned':
    case 'forbidden':
    case 'not_found':
    case 'conflict':
    case 'payload_too_large':
    case 'edit_window_closed':
    case 'network':
      return t(`error_${problem.code}`);
    default:
      return t('error_other', { detail: problem.detail || `HTTP ${problem.status}` });
  }
}

/** Retry-After is delta-seconds or an HTTP date. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}
