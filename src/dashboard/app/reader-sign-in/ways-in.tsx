import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../../client/api.ts';
import { href } from '../router.ts';
import { Link, notify } from '../ui.tsx';

type SiteDetail = Answer<'/api/sites/{id}'>;
type Setting = 'email_sign_in' | 'provider_avatars';

const SAVED: Record<Setting, (on: boolean) => string> = {
  email_sign_in: (on) => (on ? 'Readers may sign in with a code mailed to them' : 'Sign-in by email code is off'),
  provider_avatars: (on) => (on ? 'Readers’ pictures come from their provider' : 'Readers’ pictures are drawn from their id'),
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
      notify(SAVED[props.name](wanted));
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
  if (props.mailEnabled && !noDomains) return <>Parley mails a 6-digit code and a link, good for 10 minutes and one sign-in.</>;
  return (
    <ul class="needs" role="list">
      {!props.mailEnabled && <li class="warn-text">This server sends no mail (its administrator has not set up an SMTP server), so readers cannot get a code yet.</li>}
      {noDomains && (
        <li class="warn-text">
          The site has no domains, so Parley cannot send readers back to its pages: add them in <Link href={href(`sites/${props.site.id}`)}>the site’s settings</Link>.
        </li>
      )}
    </ul>
  );
}

export function WaysIn(props: { site: SiteDetail; mailEnabled: boolean; onSaved: (site: SiteDetail) => void }) {
  return (
    <div class="switches">
      <Switch site={props.site} name="email_sign_in" label="Sign-in by email code" onSaved={props.onSaved}>
        <EmailNeeds site={props.site} mailEnabled={props.mailEnabled} />
      </Switch>
      <Switch site={props.site} name="provider_avatars" label="Show readers’ pictures from their provider" onSaved={props.onSaved}>
        When off, the widget draws each reader a picture from their id, and readers’ browsers ask no third party for one.
      </Switch>
    </div>
  );
}
