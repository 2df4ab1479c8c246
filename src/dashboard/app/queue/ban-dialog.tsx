import { api, must } from '../../client/api.ts';
import { t } from '../i18n.ts';
import { Dialog, Form, notify, text } from '../ui.tsx';

/** The lengths of a ban offered, in days; 0: for good. */
const DURATIONS = [0, 1, 7, 30];

/** Bans a site user, for a time or for good; a shadow ban hides their comments from everyone else. */
export function BanDialog(props: { siteId: string; userId: string; name: string; onClose: () => void; onBanned?: () => void; types?: Array<'ban' | 'shadow_ban'> }) {
  // Only the kinds of ban not in force already: the server refuses a second one.
  const types = props.types ?? ['ban', 'shadow_ban'];
  return (
    <Dialog title={t('ban.title', { name: props.name })} onClose={props.onClose}>
      <Form
        submit={t('ban.submit')}
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
          notify(t('ban.done', { type: banType, name: props.name, days: Number(days) }));
          props.onBanned?.();
          props.onClose();
        }}
      >
        <fieldset>
          <legend>{t('ban.kind')}</legend>
          {types.map((type, i) => (
            <label key={type} class="check">
              <input type="radio" name="type" value={type} checked={i === 0} />
              {t(type === 'ban' ? 'ban.ban' : 'ban.shadow')}
            </label>
          ))}
        </fieldset>
        <label>
          {t('ban.duration')}
          <select name="duration">
            {DURATIONS.map((days) => (
              <option key={days} value={days || ''}>{days ? t('ban.forDays', { days }) : t('ban.permanently')}</option>
            ))}
          </select>
        </label>
        <label>
          {t('ban.reason')}
          <input name="reason" maxLength={500} />
        </label>
      </Form>
    </Dialog>
  );
}
