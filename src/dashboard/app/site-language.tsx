import { api, must, type Answer } from '../client/api.ts';
import { LOCALES, type Locale } from '../../i18n/locales.ts';
import { t } from './i18n.ts';
import { SiteWords } from './site-words.tsx';
import { Form, notify, text } from './ui.tsx';

type SiteDetail = Answer<'/api/sites/{id}'>;

/** A language by its own name (Deutsch, 日本語, العربية), as someone who reads it looks for it. */
export function languageName(locale: Locale): string {
  return new Intl.DisplayNames([locale], { type: 'language' }).of(locale) ?? locale;
}

/** Every language Parley speaks, ordered by its own name. */
export const LANGUAGES: Locale[] = [...LOCALES].sort((a, b) => languageName(a).localeCompare(languageName(b)));

/** Options naming each language in itself (and tagged with it, so a screen reader says it right). */
export function LanguageOptions(props: { selected: string | null; label?: (locale: Locale) => string }) {
  return (
    <>
      {LANGUAGES.map((locale) => (
        <option key={locale} value={locale} lang={locale} selected={locale === props.selected}>
          {props.label ? props.label(locale) : languageName(locale)}
        </option>
      ))}
    </>
  );
}

function DefaultLanguage(props: { site: SiteDetail; onSaved: (site: SiteDetail) => void }) {
  const { site } = props;
  return (
    <Form
      submit={t('sites.language.submit')}
      onSubmit={async (data) => {
        const language = (text(data, 'language') || null) as Locale | null;
        props.onSaved(await must(api.PATCH('/api/sites/{id}', { params: { path: { id: site.id } }, body: { language } })));
        notify(t('sites.language.saved'));
      }}
    >
      <label>
        {t('sites.language.label')}
        <select name="language" aria-describedby="site-language-about">
          <option value="" selected={site.language === null}>
            {t('sites.language.parleyDefault')}
          </option>
          <LanguageOptions selected={site.language} />
        </select>
      </label>
      <span id="site-language-about" class="note hint">
        {t('sites.language.about')}
      </span>
    </Form>
  );
}

/** The site's language and its own words for Parley's messages, per language. */
export function LanguagePanel(props: { site: SiteDetail; onSaved: (site: SiteDetail) => void }) {
  return (
    <div class="panel">
      <h2>{t('sites.language.title')}</h2>
      <DefaultLanguage site={props.site} onSaved={props.onSaved} />
      <h3 id="site-words-title" class="words-title">{t('sites.words.title')}</h3>
      <p class="note">{t('sites.words.about')}</p>
      <SiteWords site={props.site} onSaved={props.onSaved} />
    </div>
  );
}
