import { api, must, type Answer } from '../client/api.ts';
import { Form, notify, text } from './ui.tsx';

type SiteDetail = Answer<'/api/sites/{id}'>;
type SpamSettings = SiteDetail['spam'];
type Switch = 'enabled' | 'form_check' | 'duplicates' | 'guest_votes';
type Threshold = Exclude<{ [K in keyof SpamSettings]: SpamSettings[K] extends number ? K : never }[keyof SpamSettings], undefined>;

const SWITCHES: Record<Switch, string> = {
  enabled: 'Check new comments and edits for spam',
  form_check: "Hold guests' comments sent without the widget's form (or with its hidden field filled)",
  duplicates: 'Hold the same text from the same author (or guest address range) within 24 hours',
  guest_votes: 'Let guests vote and react, one vote per address range (/24, /56) on each comment',
};
/** Each threshold with its label and largest value (src/spam/settings.ts); 0 turns most of them off. */
const THRESHOLDS: Record<Threshold, { label: string; max: number }> = {
  min_submit_seconds: { label: "Hold guests' comments sent sooner than this many seconds after the form appeared (0: no minimum)", max: 600 },
  max_links: { label: 'Hold comments with more links than', max: 1000 },
  links_min_approved: { label: 'Hold comments with links from authors with fewer approved comments than (0: off)', max: 1000 },
  duplicate_authors: { label: 'Hold every copy when this many authors post the same text within an hour (0: off)', max: 1000 },
  ip_range_per_10_minutes: { label: "Hold guests' comments past this many from one address range in 10 minutes (0: off)", max: 20_000 },
  thread_per_minute: { label: 'Hold comments past this many in one thread in a minute (0: off)', max: 20_000 },
  site_per_minute: { label: 'Hold comments past this many on the site in a minute (0: off)', max: 20_000 },
  history_min_comments: { label: 'Hold comments of authors with at least this many comments, most of them removed or spam (0: off)', max: 1000 },
};
const PROOF_OF_WORK: Record<SpamSettings['proof_of_work'], string> = {
  off: 'Never',
  always: 'On every comment',
  velocity: 'While comments are held for coming too fast',
};
const words = (value: string) => value.split(/[\n,]+/).map((word) => word.trim()).filter(Boolean);

/** The site's spam checks (the `spam` object of PATCH /api/sites/:id); only what the form shows is sent. */
export function SpamPanel(props: { site: SiteDetail; onSaved: (site: SiteDetail) => void }) {
  const { site } = props;
  const spam = site.spam;
  return (
    <Form
      submit="Save the spam defence"
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
        notify('The spam defence is saved');
      }}
    >
      {(Object.keys(SWITCHES) as Switch[]).map((name) => (
        <label key={name} class="check">
          <input type="checkbox" name={name} defaultChecked={spam[name]} />
          {SWITCHES[name]}
        </label>
      ))}
      {(Object.keys(THRESHOLDS) as Threshold[]).map((name) => (
        <label key={name}>
          {THRESHOLDS[name].label}
          <input type="number" name={name} required min={0} max={THRESHOLDS[name].max} step={1} defaultValue={String(spam[name])} />
        </label>
      ))}
      <label>
        Ask guests for a proof of work (a few seconds of their browser's time)
        <select name="proof_of_work">
          {Object.entries(PROOF_OF_WORK).map(([mode, label]) => (
            <option key={mode} value={mode} selected={mode === spam.proof_of_work}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Refuse comments holding these words (one per line or separated by commas)
        <textarea name="banned_words" rows={3} defaultValue={spam.banned_words.join('\n')} />
      </label>
      <label>
        Hold comments holding these words for approval (one per line or separated by commas)
        <textarea name="suspect_words" rows={3} defaultValue={spam.suspect_words.join('\n')} />
      </label>
    </Form>
  );
}
