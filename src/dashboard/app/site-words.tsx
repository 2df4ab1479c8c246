import { useEffect, useState } from 'preact/hooks';
import { api, errorText, must, type Answer, type Problem } from '../client/api.ts';
import type { Locale } from '../../i18n/locales.ts';
import { t } from './i18n.ts';
import { OVERRIDABLE, type Overridable, type Surface } from './overridable.ts';
import { LanguageOptions, languageName } from './site-language.tsx';
import { notify } from './ui.tsx';

type SiteDetail = Answer<'/api/sites/{id}'>;
type Table = Record<string, string>;
type Strings = Partial<Record<Locale, Table>>;

/** How many messages show before "Show more": the whole list is some two hundred. */
const PAGE = 25;
const SURFACES: Surface[] = ['widget', 'dialogs', 'mail'];
const fieldId = (key: string) => `word-${key}`;

/**
 * Saves a language's whole table (PATCH replaces it). A text the server refuses comes back as the
 * key and the reason, to show at its field; any other failure throws.
 */
async function saveTable(siteId: string, lang: Locale, table: Table): Promise<{ site: SiteDetail } | { key: string; problem: string }> {
  const call = api.PATCH('/api/sites/{id}', { params: { path: { id: siteId } }, body: { strings: { [lang]: table } } });
  const answer = await call.catch(() => null);
  const field = answer && !answer.response.ok ? (answer.error as Partial<Problem> | undefined)?.errors?.[0] : undefined;
  const refused = field?.path.match(/^body\/strings\/[^/]+\/(.+)$/);
  if (field && refused) return { key: refused[1], problem: field.message };
  return { site: await must(call) };
}

function matches(message: Overridable, own: string | undefined, query: string): boolean {
  if (!query) return true;
  return [message.key, message.english, own ?? ''].some((text) => text.toLowerCase().includes(query));
}

function WordField(props: {
  message: Overridable;
  lang: Locale;
  saved: string | undefined;
  draft: string | undefined;
  problem: string | undefined;
  busy: boolean;
  onDraft: (text: string) => void;
  onSave: (text: string) => void;
  onReset: () => void;
}) {
  const { key, english } = props.message;
  const id = fieldId(key);
  const value = props.draft ?? props.saved ?? '';
  const changed = props.draft !== undefined && props.draft !== (props.saved ?? '');
  const describedBy = props.problem ? `${id}-english ${id}-problem` : `${id}-english`;
  return (
    <li class="word">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          props.onSave(value);
        }}
      >
        <div class="word-head">
          <label for={id}>
            <code>{key}</code>
          </label>
          {props.saved !== undefined && <span class="badge">{t('sites.words.reworded')}</span>}
        </div>
        <p id={`${id}-english`} class="word-english">
          <span class="note">{t('sites.words.english')}</span>{' '}
          <span lang="en" dir="ltr">{english}</span>
        </p>
        <textarea
          id={id}
          lang={props.lang}
          dir="auto"
          rows={2}
          value={value}
          placeholder={t('sites.words.placeholder', { language: languageName(props.lang) })}
          aria-describedby={describedBy}
          aria-invalid={props.problem ? true : undefined}
          onInput={(event) => props.onDraft(event.currentTarget.value)}
        />
        {props.problem && (
          <p id={`${id}-problem`} class="problem">
            {props.problem}
          </p>
        )}
        <div class="actions">
          <button type="submit" disabled={!changed || props.busy} aria-label={t('sites.words.saveLabel', { key })}>
            {t('sites.words.save')}
          </button>
          {(props.saved !== undefined || changed) && (
            <button type="button" class="plain" disabled={props.busy} onClick={props.onReset} aria-label={t('sites.words.resetLabel', { key })}>
              {t('sites.words.reset')}
            </button>
          )}
        </div>
      </form>
    </li>
  );
}

/**
 * The site's own words for any message of the widget, its dialogs and its mails, in one language at a
 * time: found by key or text, each saved (or put back to Parley's) on its own, a refusal shown at
 * its field.
 */
export function SiteWords(props: { site: SiteDetail; onSaved: (site: SiteDetail) => void }) {
  const strings = (props.site.strings ?? {}) as Strings;
  const [lang, setLang] = useState<Locale>(() => props.site.language ?? (Object.keys(strings)[0] as Locale | undefined) ?? 'en');
  const [query, setQuery] = useState('');
  const [surface, setSurface] = useState<Surface | ''>('');
  const [onlyOwn, setOnlyOwn] = useState(false);
  const [shown, setShown] = useState(PAGE);
  // Drafts and refusals are kept per language and key, so switching language loses nothing typed.
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const [focus, setFocus] = useState<string | null>(null);
  const table = strings[lang] ?? {};
  const slot = (key: string) => `${lang}/${key}`;

  useEffect(() => {
    if (focus) document.getElementById(fieldId(focus))?.focus();
    setFocus(null);
  }, [focus]);

  const forget = (key: string) => {
    setDrafts(({ [slot(key)]: _, ...rest }) => rest);
    setProblems(({ [slot(key)]: _, ...rest }) => rest);
  };

  const save = async (key: string, text: string) => {
    const { [key]: _, ...next } = table;
    const reset = text.trim() === '';
    if (!reset) next[key] = text;
    setBusy(key);
    try {
      const result = await saveTable(props.site.id, lang, next);
      if ('problem' in result) {
        setProblems((current) => ({ ...current, [slot(result.key)]: result.problem }));
        setFocus(result.key);
        return;
      }
      forget(key);
      props.onSaved(result.site);
      notify(t(reset ? 'sites.words.resetDone' : 'sites.words.saved', { key }));
    } catch (error) {
      notify(errorText(error), 'error');
    } finally {
      setBusy(null);
    }
  };

  const needle = query.trim().toLowerCase();
  const found = OVERRIDABLE.filter(
    (message) =>
      problems[slot(message.key)] !== undefined ||
      ((surface === '' || message.surface === surface) && (!onlyOwn || message.key in table) && matches(message, table[message.key], needle)),
  );
  // A refused message stays in sight whatever the filters and the page say.
  const visible = found.filter((message, index) => index < shown || problems[slot(message.key)] !== undefined);
  const ownCount = (locale: Locale) => Object.keys(strings[locale] ?? {}).length;

  return (
    <div class="words" aria-labelledby="site-words-title" role="group">
      <div class="toolbar">
        <label>
          {t('sites.words.language')}
          <select onChange={(event) => setLang(event.currentTarget.value as Locale)}>
            <LanguageOptions
              selected={lang}
              label={(locale) => (ownCount(locale) > 0 ? t('sites.words.languageWithCount', { language: languageName(locale), count: ownCount(locale) }) : languageName(locale))}
            />
          </select>
        </label>
        <label>
          {t('sites.words.surface')}
          <select onChange={(event) => setSurface(event.currentTarget.value as Surface | '')}>
            <option value="">{t('sites.words.surface.all')}</option>
            {SURFACES.map((name) => (
              <option key={name} value={name} selected={name === surface}>
                {t('sites.words.surfaceName', { surface: name })}
              </option>
            ))}
          </select>
        </label>
        <label class="words-search">
          {t('sites.words.search')}
          <input
            type="search"
            value={query}
            aria-describedby="site-words-search-about"
            onInput={(event) => {
              setQuery(event.currentTarget.value);
              setShown(PAGE);
            }}
          />
        </label>
        <label class="check">
          <input type="checkbox" checked={onlyOwn} onChange={(event) => setOnlyOwn(event.currentTarget.checked)} />
          {t('sites.words.onlyOwn', { language: languageName(lang) })}
        </label>
      </div>
      <p id="site-words-search-about" class="note">
        {t('sites.words.searchAbout')}
      </p>
      <p class="note" role="status">
        {t('sites.words.count', { count: found.length, total: OVERRIDABLE.length })}
      </p>
      <ul class="word-list">
        {visible.map((message) => (
          <WordField
            key={`${lang}/${message.key}`}
            message={message}
            lang={lang}
            saved={table[message.key]}
            draft={drafts[slot(message.key)]}
            problem={problems[slot(message.key)]}
            busy={busy === message.key}
            onDraft={(text) => setDrafts((current) => ({ ...current, [slot(message.key)]: text }))}
            onSave={(text) => void save(message.key, text)}
            onReset={() => (message.key in table ? void save(message.key, '') : forget(message.key))}
          />
        ))}
      </ul>
      {found.length > visible.length && (
        <button type="button" onClick={() => setShown((n) => n + PAGE)}>
          {t('sites.words.more', { count: Math.min(PAGE, found.length - visible.length) })}
        </button>
      )}
    </div>
  );
}
