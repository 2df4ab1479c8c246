import { api, must } from '../../client/api.ts';
import { t } from '../i18n.ts';
import { chosenSite, useSession } from '../session.ts';
import { SitePicker } from '../site-picker.tsx';
import { Empty, Loaded, useLoad } from '../ui.tsx';
import { IdentityProviders } from './providers.tsx';
import { WaysIn } from './ways-in.tsx';

/** How readers sign in to a site: by email code, through identity providers, and whose pictures show. */
export function ReaderSignInView(props: { url: URL }) {
  const { sites } = useSession();
  const chosen = chosenSite(sites, props.url);
  const [load, reload, update] = useLoad(
    async () => (chosen ? Promise.all([must(api.GET('/api/sites/{id}', { params: { path: { id: chosen.id } } })), must(api.GET('/api/auth/me/mail'))]) : null),
    [chosen?.id],
  );
  if (!chosen) return <Empty>{t('signIn.noSite')}</Empty>;
  return (
    <section aria-labelledby="reader-sign-in-title">
      <div class="view-head">
        <h1 id="reader-sign-in-title">{t('signIn.title', { site: chosen.name })}</h1>
        <SitePicker sites={sites} current={chosen} />
      </div>
      <div class="panel">
        <h2>{t('signIn.waysIn.title')}</h2>
        <Loaded load={load} retry={reload} loading="signIn.waysIn.loading" failed="signIn.waysIn.loadFailed">
          {(data) => data && <WaysIn site={data[0]} mailEnabled={data[1].mail_enabled} onSaved={(site) => update((current) => current && [site, current[1]])} />}
        </Loaded>
      </div>
      <div class="panel">
        <h2>{t('signIn.providers.title')}</h2>
        <IdentityProviders key={chosen.id} siteId={chosen.id} />
      </div>
    </section>
  );
}
