import { Type } from 'typebox';
import { invalid } from '../errors.ts';
import { LOCALES, type Locale } from '../i18n/locales.ts';
import { translationProblems, type Catalog } from '../i18n/messages.ts';
import widgetEnglish from '../widget/locales/en.json' with { type: 'json' };
import dialogEnglish from '../widget/locales/dialogs/en.json' with { type: 'json' };
import mailEnglish from '../mail/locales/en.json' with { type: 'json' };

/** A site's own wording of Parley's messages: language → key → ICU MessageFormat text. */
export type SiteStrings = Partial<Record<Locale, Record<string, string>>>;

/** Every message a site may reword, by key: the widget's, its dialogs' and its mails' (one key names one message). */
export const OVERRIDABLE: Catalog = { ...widgetEnglish, ...dialogEnglish, ...mailEnglish };

const MAX_TEXT = 2000;

export const LanguageSetting = Type.Union([Type.Enum([...LOCALES]), Type.Null()], {
  description:
    "The widget's language when neither its `lang` attribute nor the page's names one Parley speaks, and of mails to readers who gave none; null: English",
});

export const StringsSetting = Type.Union([Type.Record(Type.String({ maxLength: 16 }), Type.Union([Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: MAX_TEXT })), Type.Null()])), Type.Null()], {
  description:
    "The site's own words for any message of the widget or its mails, per language: `{\"de\": {\"empty\": \"Noch nichts hier.\"}}`. Each text is ICU MessageFormat " +
    "with the same placeholders as Parley's. A language given replaces that language's words; null or `{}` for a language drops them; `strings: null` drops all",
});

/** `current` with the languages of `patch` replaced, checked against the messages they reword; throws 400 naming the first wrong text. */
export function mergeSiteStrings(current: SiteStrings, patch: Record<string, Record<string, string> | null> | null): SiteStrings {
  if (patch === null) return {};
  const merged: SiteStrings = { ...current };
  for (const [lang, table] of Object.entries(patch)) {
    if (!(LOCALES as readonly string[]).includes(lang)) throw invalid(`body/strings/${lang}`, `must be a language Parley speaks: ${LOCALES.join(', ')}`);
    const locale = lang as Locale;
    if (table === null || Object.keys(table).length === 0) {
      delete merged[locale];
      continue;
    }
    for (const [key, text] of Object.entries(table)) {
      const english = OVERRIDABLE[key];
      if (english === undefined) throw invalid(`body/strings/${lang}/${key}`, 'is not a message of the widget or its mails');
      const [problem] = translationProblems(english, text, locale);
      if (problem) throw invalid(`body/strings/${lang}/${key}`, problem);
    }
    merged[locale] = table;
  }
  return merged;
}

export function decodeSiteStrings(column: string | null): SiteStrings {
  return column ? (JSON.parse(column) as SiteStrings) : {};
}

export function encodeSiteStrings(strings: SiteStrings): string | null {
  return Object.keys(strings).length === 0 ? null : JSON.stringify(strings);
}
