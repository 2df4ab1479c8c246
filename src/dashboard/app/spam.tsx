import { api, must, type Answer } from '../client/api.ts';
import { t, type MessageKey } from './i18n.ts';
import { Form, Loaded, notify, text, useLoad } from './ui.tsx';

type SiteDetail = Answer<'/api/sites/{id}'>;
type SpamSettings = SiteDetail['spam'];
type Switch = 'enabled' | 'form_check' | 'duplicates' | 'guest_votes';
type Threshold = Exclude<{ [K in keyof SpamSettings]: SpamSettings[K] extends number ? K : never }[keyof SpamSettings], undefined>;

const SWITCHES: Record<Switch, MessageKey> = {
  enabled: 'spam.switch.enabled',
  form_check: 'spam.switch.formCheck',
  duplicates: 'spam.switch.duplicates',
  guest_votes: 'spam.switch.guestVotes',
};
/** Each threshold with its label and largest value (src/spam/settings.ts); 0 turns most of them off. */
const THRESHOLDS: Record<Threshold, { label: MessageKey; max: number }> = {
  min_submit_seconds: { label: 'spam.threshold.minSubmitSeconds', max: 600 },
  max_links: { label: 'spam.threshold.maxLinks', max: 1000 },
  links_min_approved: { label: 'spam.threshold.linksMinApproved', max: 1000 },
  duplicate_authors: { label: 'spam.threshold.duplicateAuthors', max: 1000 },
  ip_range_per_10_minutes: { label: 'spam.threshold.ipRangePer10Minutes', max: 20_000 },
  thread_per_minute: { label: 'spam.threshold.threadPerMinute', max: 20_000 },
  site_per_minute: { label: 'spam.threshold.sitePerMinute', max: 20_000 },
  history_min_comments: { label: 'spam.threshold.historyMinComments', max: 1000 },
};
const PROOF_OF_WORK: Record<SpamSettings['proof_of_work'], MessageKey> = {
  off: 'spam.proofOfWork.off',
  always: 'spam.proofOfWork.always',
  velocity: 'spam.proofOfWork.velocity',
};
const CLASSIFIER_MODES: Record<SpamSettings['classifier']['mode'], MessageKey> = {
  hold_above: 'spam.classifier.mode.holdAbove',
  off: 'spam.classifier.mode.off',
};
const words = (value: string) => value.split(/[\n,]+/).map((word) => word.trim()).filter(Boolean);

/** The site's spam checks (the `spam` object of PATCH /api/sites/:id); only what the form shows is sent. */
export function SpamPanel(props: { site: SiteDetail; onSaved: (site: SiteDetail) => void }) {
  const { site } = props;
  const spam = site.spam;
  const [classifier, reloadClassifier] = useLoad(() => must(api.GET('/api/sites/{id}/classifier', { params: { path: { id: site.id } } })), [site.id]);
  return (
    <Form
      submit={t('spam.submit')}
      onSubmit={async (data) => {
        const switches = Object.fromEntries(Object.keys(SWITCHES).map((name) => [name, data.get(name) === 'on']));
        const thresholds = Object.fromEntries(Object.keys(THRESHOLDS).map((name) => [name, Number(text(data, name))]));
        const saved = await must(
          api.PATCH('/api/sites/{id}', {
            params: { path: { id: site.id } },
            body: {
              spam: {
                ...switches,
                ...thresholds,
                proof_of_work: text(data, 'proof_of_work') as SpamSettings['proof_of_work'],
                banned_words: words(text(data, 'banned_words')),
                suspect_words: words(text(data, 'suspect_words')),
                classifier: { mode: text(data, 'classifier_mode') as SpamSettings['classifier']['mode'], threshold: Number(text(data, 'classifier_threshold')) },
              },
            },
          }),
        );
        props.onSaved(saved);
        reloadClassifier();
        notify(t('spam.saved'));
      }}
    >
      {(Object.keys(SWITCHES) as Switch[]).map((name) => (
        <label key={name} class="check">
          <input type="checkbox" name={name} defaultChecked={spam[name]} />
          {t(SWITCHES[name])}
        </label>
      ))}
      {(Object.keys(THRESHOLDS) as Threshold[]).map((name) => (
        <label key={name}>
          {t(THRESHOLDS[name].label)}
          <input type="number" name={name} required min={0} max={THRESHOLDS[name].max} step={1} defaultValue={String(spam[name])} />
        </label>
      ))}
      <label>
        {t('spam.proofOfWork.label')}
        <select name="proof_of_work">
          {Object.entries(PROOF_OF_WORK).map(([mode, label]) => (
            <option key={mode} value={mode} selected={mode === spam.proof_of_work}>
              {t(label)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('spam.bannedWords')}
        <textarea name="banned_words" rows={3} defaultValue={spam.banned_words.join('\n')} />
      </label>
      <label>
        {t('spam.suspectWords')}
        <textarea name="suspect_words" rows={3} defaultValue={spam.suspect_words.join('\n')} />
      </label>
      <fieldset>
        <legend>{t('spam.classifier.legend')}</legend>
        <p class="note">{t('spam.classifier.about')}</p>
        <label>
          {t('spam.classifier.mode')}
          <select name="classifier_mode">
            {Object.entries(CLASSIFIER_MODES).map(([mode, label]) => (
              <option key={mode} value={mode} selected={mode === spam.classifier.mode}>
                {t(label)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('spam.classifier.threshold')}
          <input type="number" name="classifier_threshold" required min={0.5} max={0.999} step={0.001} defaultValue={String(spam.classifier.threshold)} />
        </label>
        <Loaded load={classifier} retry={reloadClassifier} loading="spam.classifier.loading" failed="spam.classifier.loadFailed">
          {(state) => (
            <p class="note" role="status">
              {t('spam.classifier.learnt', { spam: state.spam_examples, ham: state.ham_examples })}{' '}
              {state.active
                ? t('spam.classifier.active', { threshold: state.threshold })
                : state.mode === 'off'
                  ? t('spam.classifier.off')
                  : t('spam.classifier.learning', { min: state.min_examples })}
            </p>
          )}
        </Loaded>
      </fieldset>
    </Form>
  );
}
