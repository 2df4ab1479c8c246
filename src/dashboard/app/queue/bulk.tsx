import { t } from '../i18n.ts';
import { pure } from '../ui.tsx';
import { ACTION_LABELS, type Action } from './actions.ts';

/** What the bulk bar asks of its queue: one object, made once. */
export interface BulkHandlers {
  toggleAll: () => void;
  act: (action: Action) => void;
  setReason: (reason: string) => void;
}

const BULK_ACTIONS: Action[] = ['approve', 'remove', 'spam', 'shadow_ban', 'dismiss_flags'];

/** Acts on the selected cards, with the reason sent along with the next action. */
export const BulkBar = pure(function BulkBar(props: { empty: boolean; allSelected: boolean; selected: number; reason: string; handlers: BulkHandlers }) {
  return (
    <div class="bulk" aria-label={t('queue.bulk')}>
      <label class="check">
        <input type="checkbox" checked={props.allSelected} disabled={props.empty} onChange={props.handlers.toggleAll} />
        {t('queue.selectAll')}
      </label>
      <span class="note">{t('queue.selected', { count: props.selected })}</span>
      {BULK_ACTIONS.map((action) => (
        <button key={action} type="button" disabled={props.selected === 0} onClick={() => props.handlers.act(action)}>
          {t(ACTION_LABELS[action])}
        </button>
      ))}
      <label class="reason">
        {t('queue.reason')}
        <input value={props.reason} maxLength={500} onInput={(event) => props.handlers.setReason(event.currentTarget.value)} />
      </label>
    </div>
  );
});
