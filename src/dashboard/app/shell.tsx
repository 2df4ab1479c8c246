import { useEffect, useState } from 'preact/hooks';
import { api, errorText, must, setCsrfToken, whenSignedOut } from '../client/api.ts';
import { AcceptInvite, ResetPassword, Setup, SignIn } from './auth.tsx';
import { ContestsView } from './contests.tsx';
import { KeysView } from './keys.tsx';
import { LogView } from './log.tsx';
import { OverviewView } from './overview.tsx';
import { ProfileView } from './profile.tsx';
import { QueueView } from './queue/queue.tsx';
import { ReaderSignInView } from './reader-sign-in/view.tsx';
import { href, navigate, useUrl, viewPath, withQuery } from './router.ts';
import { administers, loadMe, loadSites, SessionContext, useSession, type Me, type Site } from './session.ts';
import { SitesView, SiteSettingsView } from './sites.tsx';
import { TeamView } from './team.tsx';
import { ThreadView } from './thread.tsx';
import { applyLanguage, t, useLocale, type MessageKey } from './i18n.ts';
import { Link, Notices } from './ui.tsx';
import { WebhooksView } from './webhooks.tsx';

const PUBLIC_PAGES = new Set(['sign-in', 'setup', 'accept-invite', 'reset-password']);

interface NavItem {
  path: string;
  label: MessageKey;
  adminOnly?: boolean;
}
const NAV: NavItem[] = [
  { path: 'queue', label: 'shell.nav.queue' },
  { path: 'contests', label: 'contests.title' },
  { path: 'overview', label: 'shell.nav.overview' },
  { path: 'sites', label: 'shell.nav.sites', adminOnly: true },
  { path: 'keys', label: 'shell.nav.keys', adminOnly: true },
  { path: 'webhooks', label: 'shell.nav.webhooks', adminOnly: true },
  { path: 'reader-sign-in', label: 'shell.nav.readerSignIn', adminOnly: true },
  { path: 'team', label: 'shell.nav.team', adminOnly: true },
  { path: 'log', label: 'log.title' },
];
/** Titles of the views reached from elsewhere than the navigation: the sign-in pages, the profile. */
const OTHER_TITLES: Record<string, MessageKey> = {
  'sign-in': 'auth.signIn.title',
  setup: 'auth.setup.title',
  'accept-invite': 'auth.invite.title',
  'reset-password': 'auth.reset.title',
  profile: 'profile.title',
};

export function App() {
  const locale = useLocale();
  const url = useUrl();
  const path = viewPath(url);
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [sites, setSites] = useState<Site[]>([]);
  const [bootError, setBootError] = useState<string | null>(null);

  const refresh = async () => {
    try {
      const signedIn = await loadMe();
      await applyLanguage(signedIn?.language);
      setSites(signedIn ? await loadSites() : []);
      setMe(signedIn);
      setBootError(null);
    } catch (error) {
      setBootError(errorText(error));
    }
  };
  const top = path.split('/')[0];
  useEffect(() => whenSignedOut(() => setMe(null)), []);
  // Before a sign-in, the pages speak the browser's language.
  useEffect(() => {
    if (me === null || PUBLIC_PAGES.has(top)) void applyLanguage(null);
  }, [me === null, top]);
  // Who is signed in is asked once a view needs it: the sign-in and link pages need nobody (they
  // call refresh once someone is).
  useEffect(() => {
    if (me === undefined && !PUBLIC_PAGES.has(top)) void refresh();
  }, [me, top]);

  useEffect(() => {
    const view = NAV.find((item) => item.path === top)?.label ?? OTHER_TITLES[top] ?? 'shell.nav.queue';
    document.title = t('shell.title', { view: t(view) });
  }, [top, locale]);

  if (top === 'sign-in') return <SignIn url={url} onSignedIn={refresh} />;
  if (top === 'setup') return <Setup onSignedIn={refresh} />;
  if (top === 'accept-invite') return <AcceptInvite onSignedIn={refresh} />;
  if (top === 'reset-password') return <ResetPassword />;

  if (bootError) {
    return (
      <main class="auth" id="main">
        <p class="problem" role="alert">{t('shell.unreachable', { error: bootError })}</p>
        <button type="button" onClick={refresh}>{t('ui.tryAgain')}</button>
      </main>
    );
  }
  if (me === undefined) return <p class="boot" role="status">{t('shell.loading')}</p>;
  if (me === null) {
    navigate(`${href('sign-in')}?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
    return null;
  }

  const session = {
    me,
    sites,
    reloadSites: async () => setSites(await loadSites()),
    chooseLanguage: async (language: Me['language']) => {
      const saved = await must(api.PUT('/api/auth/me/language', { body: { language } }));
      await applyLanguage(saved.language);
      setMe({ ...me, language: saved.language });
    },
    signOut: async () => {
      await must(api.POST('/api/auth/logout'));
      setCsrfToken(null);
      setMe(null);
    },
  };
  return (
    <SessionContext.Provider value={session}>
      <Layout url={url} path={path} />
    </SessionContext.Provider>
  );
}

function Layout(props: { url: URL; path: string }) {
  const { me, signOut } = useSession();
  const [top, second] = props.path.split('/');
  const current = top || 'queue';
  const site = props.url.searchParams.get('site');
  return (
    <div class="layout">
      <a class="skip" href="#main">{t('shell.skip')}</a>
      <header class="top">
        <Link href={href('')} class="brand">Parley</Link>
        <nav aria-label={t('shell.nav')}>
          {NAV.filter((item) => !item.adminOnly || administers(me)).map((item) => (
            <Link key={item.path} href={withQuery({ site }, new URL(href(item.path), location.origin))} aria-current={current === item.path ? 'page' : undefined}>
              {t(item.label)}
            </Link>
          ))}
        </nav>
        <div class="who">
          <Link href={href('profile')} aria-current={current === 'profile' ? 'page' : undefined}>
            <bdi>{me.staff.name}</bdi>
          </Link>
          <button type="button" class="plain" onClick={signOut}>{t('shell.signOut')}</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <View top={current} second={second} url={props.url} />
      </main>
      <Notices />
    </div>
  );
}

/** A page for the account's owners and admins, opened by someone who is neither. */
function AdminsOnly() {
  return (
    <section aria-labelledby="admins-only-title">
      <h1 id="admins-only-title">{t('shell.adminsOnly.title')}</h1>
      <p>{t('shell.adminsOnly.text')}</p>
      <p>
        <Link href={href('queue')}>{t('shell.notFound.link')}</Link>
      </p>
    </section>
  );
}

function View(props: { top: string; second?: string; url: URL }) {
  const { me } = useSession();
  if (NAV.some((item) => item.path === props.top && item.adminOnly) && !administers(me)) return <AdminsOnly />;
  switch (props.top) {
    case 'queue':
      return <QueueView url={props.url} />;
    case 'thread':
      return <ThreadView url={props.url} />;
    case 'overview':
      return <OverviewView url={props.url} />;
    case 'sites':
      return props.second ? <SiteSettingsView siteId={props.second} /> : <SitesView />;
    case 'keys':
      return <KeysView />;
    case 'webhooks':
      return <WebhooksView url={props.url} />;
    case 'reader-sign-in':
      return <ReaderSignInView url={props.url} />;
    case 'team':
      return <TeamView url={props.url} />;
    case 'log':
      return <LogView url={props.url} />;
    case 'contests':
      return <ContestsView url={props.url} />;
    case 'profile':
      return <ProfileView />;
    default:
      return (
        <section>
          <h1>{t('shell.notFound.title')}</h1>
          <p>{t('shell.notFound.text')}</p>
          <p>
            <Link href={href('queue')}>{t('shell.notFound.link')}</Link>
          </p>
        </section>
      );
  }
}
