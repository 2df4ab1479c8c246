/**
 * The languages Parley speaks, by the tag its message files are named after. Browser-safe: the
 * widget and the dashboard match tags with it too.
 */
export const LOCALES = [
  'en', 'ar', 'bg', 'ca', 'cs', 'da', 'de', 'el', 'es', 'et', 'fa', 'fi', 'fr', 'he', 'hi', 'hr', 'hu', 'id', 'it', 'ja', 'ko',
  'lt', 'lv', 'nb', 'nl', 'pl', 'pt-BR', 'pt-PT', 'ro', 'ru', 'sk', 'sl', 'sr', 'sv', 'th', 'tr', 'uk', 'ur', 'vi', 'zh-Hans', 'zh-Hant',
] as const;

export type Locale = (typeof LOCALES)[number];

/** Written right to left: the widget and the dashboard mirror for them. */
const RIGHT_TO_LEFT = new Set<string>(['ar', 'fa', 'he', 'ur']);

export function direction(locale: string): 'rtl' | 'ltr' {
  return RIGHT_TO_LEFT.has(locale) ? 'rtl' : 'ltr';
}

const BY_LOWER = new Map<string, Locale>(LOCALES.map((locale) => [locale.toLowerCase(), locale]));

/** Tags whose language alone does not say which of our locales a browser would pick. */
const ALIASES: Record<string, Locale> = {
  pt: 'pt-BR',
  zh: 'zh-Hans',
  'zh-cn': 'zh-Hans',
  'zh-sg': 'zh-Hans',
  'zh-my': 'zh-Hans',
  'zh-tw': 'zh-Hant',
  'zh-hk': 'zh-Hant',
  'zh-mo': 'zh-Hant',
  no: 'nb',
  nn: 'nb',
  iw: 'he',
  in: 'id',
};

/**
 * The locale a language tag asks for, as browsers match them: `de-DE` → de, `pt` → pt-BR,
 * `zh-TW` → zh-Hant, `zh-Hant-HK` → zh-Hant; null for a language Parley does not speak (the caller
 * then tries its next source). Case and `_` separators are forgiven.
 */
export function matchLocale(tag: string | null | undefined): Locale | null {
  if (!tag) return null;
  const subtags = tag.trim().replace(/_/g, '-').toLowerCase().split('-').filter(Boolean);
  // Longest prefix first: zh-hant-hk, zh-hant, zh.
  for (let length = subtags.length; length > 0; length--) {
    const candidate = subtags.slice(0, length).join('-');
    const found = BY_LOWER.get(candidate) ?? ALIASES[candidate];
    if (found) return found;
  }
  return null;
}

/** The first of `tags` Parley speaks, else English. */
export function pickLocale(...tags: Array<string | null | undefined>): Locale {
  for (const tag of tags) {
    const found = matchLocale(tag);
    if (found) return found;
  }
  return 'en';
}
