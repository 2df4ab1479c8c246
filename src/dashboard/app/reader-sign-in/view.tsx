import { useState } from 'preact/hooks';
import { api, must } from '../../client/api.ts';
import { administers, chosenSite, useSession } from '../session.ts';
import { SitePicker } from '../site-picker.tsx';
import { Empty, Loaded, useLoad } from '../ui.tsx';
import { AddProvider, CallbackUrl } from './provider-form.tsx';
import type { Provider } from './provider-types.tsx';
import { ProviderList } from './providers.tsx';
import { WaysIn } from './ways-in.tsx';

async function loadSignIn(siteId: string) {
  const path = { path: { id: siteId } };
  const [site, mail, list] = await Promise.all([
    must(api.GET('/api/sites/{id}', { params: path })),
    must(api.GET('/api/auth/me/mail')),
    must(api.GET('/api/sites/{id}/identity-providers', { params: path })),
  ]);
  return { site, mailEnabled: mail.mail_enabled, providers: list.identity_providers };
}

/**
 * The address providers send readers back to. It is one for every provider of the server, so a
 * provider already added gives the server's own (PARLEY_PUBLIC_URL); before the first one, the
 * dashboard's origin is the best guess, and the added provider then shows the server's.
 */
const callbackUrlOf = (providers: Provider[]) => providers[0]?.callback_url ?? `${location.origin}/v1/auth/callback`;

/** How readers sign in to a site: by email code, through identity providers, and whose pictures show. */
export function ReaderSignInView(props: { url: URL }) {
  const { me, sites } = useSession();
  const chosen = chosenSite(sites, props.url);
  const [load, reload, update] = useLoad(async () => (chosen ? loadSignIn(chosen.id) : null), [chosen?.id]);
  const [added, setAdded] = useState<Provider | null>(null);
  if (!administers(me)) return <Empty>Only a site’s owners and admins choose how its readers sign in.</Empty>;
  if (!chosen) return <Empty>You have no site yet: create one under Sites first.</Empty>;
  const changeProviders = (change: (providers: Provider[]) => Provider[]) => update((data) => data && { ...data, providers: change(data.providers) });
  return (
    <section aria-labelledby="reader-sign-in-title">
      <div class="view-head">
        <h1 id="reader-sign-in-title">How readers sign in to {chosen.name}</h1>
        <SitePicker sites={sites} current={chosen} />
      </div>
      <Loaded load={load} retry={reload} what="the sign-in settings">
        {(data) =>
          data && (
            <>
              <div class="panel">
                <h2>Ways in</h2>
                <WaysIn site={data.site} mailEnabled={data.mailEnabled} onSaved={(site) => update((current) => current && { ...current, site })} />
              </div>
              <div class="panel">
                <h2>Identity providers</h2>
                {added && (
                  <div class="secret" role="status">
                    <span>{added.name} is added. If you have not yet, paste its callback URL into the provider’s console, then press Test.</span>
                    <CallbackUrl url={added.callback_url} />
                    <button type="button" class="plain" onClick={() => setAdded(null)}>Done</button>
                  </div>
                )}
                <ProviderList
                  providers={data.providers}
                  onChanged={(changed) => changeProviders((list) => list.map((p) => (p.id === changed.id ? changed : p)))}
                  onRemoved={(removed) => {
                    if (added?.id === removed.id) setAdded(null);
                    changeProviders((list) => list.filter((p) => p.id !== removed.id));
                  }}
                />
                <h3>Add a provider</h3>
                <AddProvider
                  siteId={data.site.id}
                  callbackUrl={callbackUrlOf(data.providers)}
                  onAdded={(provider) => {
                    setAdded(provider);
                    changeProviders((list) => [...list, provider]);
                  }}
                />
              </div>
            </>
          )
        }
      </Loaded>
    </section>
  );
}
