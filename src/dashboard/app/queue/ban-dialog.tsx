import { api, must } from '../../client/api.ts';
import { Dialog, Form, notify, text } from '../ui.tsx';

const DURATIONS: Array<[string, number | null]> = [
  ['Permanently', null],
  ['For 1 day', 1],
  ['For 7 days', 7],
  ['For 30 days', 30],
];

/** Bans a site user, for a time or for good; a shadow ban hides their comments from everyone else. */
export function BanDialog(props: { siteId: string; userId: string; name: string; onClose: () => void; onBanned?: () => void }) {
  return (
    <Dialog title={`Ban ${props.name}`} onClose={props.onClose}>
      <Form
        submit="Ban"
        onSubmit={async (data) => {
          const days = text(data, 'duration');
          const expires = days ? new Date(Date.now() + Number(days) * 86400_000).toISOString() : null;
          const banType = text(data, 'type') === 'shadow_ban' ? 'shadow_ban' : 'ban';
          await must(
            api.POST('/api/sites/{id}/bans', {
              params: { path: { id: props.siteId } },
              body: { user_id: props.userId, ban_type: banType, reason: text(data, 'reason') || null, expires_at: expires },
            }),
          );
          notify(`${props.name} is ${banType === 'ban' ? 'banned' : 'shadow-banned'}${days ? ` for ${days} day${days === '1' ? '' : 's'}` : ''}`);
          props.onBanned?.();
          props.onClose();
        }}
      >
        <fieldset>
          <legend>Kind of ban</legend>
          <label class="check">
            <input type="radio" name="type" value="ban" checked />
            Ban: they can no longer comment, vote or flag
          </label>
          <label class="check">
            <input type="radio" name="type" value="shadow_ban" />
            Shadow ban: they may go on, but only they see their comments
          </label>
        </fieldset>
        <label>
          How long
          <select name="duration">
            {DURATIONS.map(([label, days]) => (
              <option key={label} value={days ?? ''}>{label}</option>
            ))}
          </select>
        </label>
        <label>
          Reason (optional, for the moderation log)<input name="reason" maxLength={500} />
        </label>
      </Form>
    </Dialog>
  );
}
