import { api, must } from '../../client/api.ts';
import { administers, chosenSite, useSession } from '../session.ts';
import { SitePicker } from '../site-picker.tsx';
import { Empty, Loaded, useLoad } from '../ui.tsx';
import { IdentityProviders } from './providers.tsx';
import { WaysIn } from './ways-in.tsx';

/** How readers sign in to a site: by email code, through identity providers, and whose pictures show. */
export function ReaderSignInView(props: { url: URL }) {
  const { me, sites } = useSession();
  const chosen = chosenSite(sites, props.url);
  const [load, reload, update] = useLoad(
    async () => (chosen ? Promise.all([must(api.GET('/api/sites/{id}', { params: { path: { id: chosen.id } } })), must(api.GET('/api/auth/me/mail'))]) : null),
    [chosen?.id],
  );
  if (!administers(me)) return <Empty>Only a site’s owners and admins choose how its readers sign in.</Empty>;
  if (!chosen) return <Empty>You have no site yet: create one under Sites first.</Empty>;
  return (
    <section aria-labelledby="reader-sign-in-title">
      <div class="view-head">
        <h1 id="reader-sign-in-title">How readers sign in to {chosen.name}</h1>
        <SitePicker sites={sites} current={chosen} />
      </div>
      <div class="panel">
        <h2>Ways in</h2>
        <Loaded load={load} retry={reload} what="the site's settings">
          {(data) => data && <WaysIn site={data[0]} mailEnabled={data[1].mail_enabled} onSaved={(site) => update((current) => current && [site, current[1]])} />}
        </Loaded>
      </div>
      <div class="panel">
        <h2>Identity providers</h2>
        <IdentityProviders key={chosen.id} siteId={chosen.id} />
      </div>
    </section>
  );
}
