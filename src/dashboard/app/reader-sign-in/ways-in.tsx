import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../../client/api.ts';
import { href } from '../router.ts';
import { t, type MessageKey } from '../i18n.ts';
import { Rich } from '../rich.tsx';
import { Link, notify } from '../ui.tsx';

type SiteDetail = Answer<'/api/sites/{id}'>;
type Setting = 'email_sign_in' | 'provider_avatars';

/** What switching a setting on, then off, did. */
const SAVED: Record<Setting, [MessageKey, MessageKey]> = {
  email_sign_in: ['signIn.emailCode.on', 'signIn.emailCode.off'],
  provider_avatars: ['signIn.avatars.on', 'signIn.avatars.off'],
};

/** A setting that saves as soon as it is switched (PATCH /api/sites/:id), with what it means below. */
function Switch(props: { site: SiteDetail; name: Setting; label: string; children: ComponentChildren; onSaved: (site: SiteDetail) => void }) {
  // Shown switched at once; put back if the server refuses.
  const [on, setOn] = useState(props.site[props.name]);
  const [busy, setBusy] = useState(false);
  const describedBy = `${props.name}-about`;
  const save = async (wanted: boolean) => {
    setOn(wanted);
    setBusy(true);
    try {
      props.onSaved(await must(api.PATCH('/api/sites/{id}', { params: { path: { id: props.site.id } }, body: { [props.name]: wanted } })));
      notify(t(SAVED[props.name][wanted ? 0 : 1]));
    } catch (error) {
      setOn(!wanted);
      notify(errorText(error), 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="switch">
      <label class="check">
        <input type="checkbox" role="switch" checked={on} disabled={busy} aria-describedby={describedBy} onChange={(event) => void save(event.currentTarget.checked)} />
        {props.label}
      </label>
      <div id={describedBy} class="note">{props.children}</div>
    </div>
  );
}

/** What sign-in by email code needs that this server or site lacks, said so the admin can act. */
function EmailNeeds(props: { site: SiteDetail; mailEnabled: boolean }) {
  const noDomains = props.site.domains.length === 0;
  if (props.mailEnabled && !noDomains) return <>{t('signIn.emailCode.about')}</>;
  return (
    <ul class="needs" role="list">
      {!props.mailEnabled && <li class="warn-text">{t('signIn.emailCode.noMail')}</li>}
      {noDomains && (
        <li class="warn-text">
          <Rich text={t('signIn.emailCode.noDomains')} tags={{ link: (words) => <Link href={href(`sites/${props.site.id}`)}>{words}</Link> }} />
        </li>
      )}
    </ul>
  );
}

export function WaysIn(props: { site: SiteDetail; mailEnabled: boolean; onSaved: (site: SiteDetail) => void }) {
  return (
    <div class="switches">
      <Switch site={props.site} name="email_sign_in" label={t('signIn.emailCode.label')} onSaved={props.onSaved}>
        <EmailNeeds site={props.site} mailEnabled={props.mailEnabled} />
      </Switch>
      <Switch site={props.site} name="provider_avatars" label={t('signIn.avatars.label')} onSaved={props.onSaved}>
        {t('signIn.avatars.about')}
      </Switch>
    </div>
  );
}
