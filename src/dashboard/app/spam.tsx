import { api, must, type Answer } from '../client/api.ts';
import { t, type MessageKey } from './i18n.ts';
import { Form, notify, text } from './ui.tsx';

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
const words = (value: string) => value.split(/[\n,]+/).map((word) => word.trim()).filter(Boolean);

/** The site's spam checks (the `spam` object of PATCH /api/sites/:id); only what the form shows is sent. */
export function SpamPanel(props: { site: SiteDetail; onSaved: (site: SiteDetail) => void }) {
  const { site } = props;
  const spam = site.spam;
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
              },
            },
          }),
        );
        props.onSaved(saved);
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
    </Form>
  );
}
