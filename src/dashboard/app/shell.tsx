import { useEffect, useState } from 'preact/hooks';
import { api, errorText, must, setCsrfToken, whenSignedOut } from '../client/api.ts';
import { AcceptInvite, ResetPassword, Setup, SignIn } from './auth.tsx';
import { KeysView } from './keys.tsx';
import { OverviewView } from './overview.tsx';
import { ProfileView } from './profile.tsx';
import { QueueView } from './queue/queue.tsx';
import { ReaderSignInView } from './reader-sign-in/view.tsx';
import { href, navigate, useUrl, viewPath, withQuery } from './router.ts';
import { administers, loadMe, loadSites, SessionContext, useSession, type Me, type Site } from './session.ts';
import { SitesView, SiteSettingsView } from './sites.tsx';
import { TeamView } from './team.tsx';
import { ThreadView } from './thread.tsx';
import { Link, Notices } from './ui.tsx';
import { WebhooksView } from './webhooks.tsx';

const PUBLIC_PAGES = new Set(['sign-in', 'setup', 'accept-invite', 'reset-password']);

interface NavItem {
  path: string;
  label: string;
  adminOnly?: boolean;
}
const NAV: NavItem[] = [
  { path: 'queue', label: 'Queue' },
  { path: 'overview', label: 'Overview' },
  { path: 'sites', label: 'Sites', adminOnly: true },
  { path: 'keys', label: 'API keys', adminOnly: true },
  { path: 'webhooks', label: 'Webhooks', adminOnly: true },
  { path: 'reader-sign-in', label: 'Reader sign-in', adminOnly: true },
  { path: 'team', label: 'Team' },
];
/** Views reached from elsewhere than the navigation: the profile, from the signed-in name. */
const OTHER_TITLES: Record<string, string> = { profile: 'Your profile' };

export function App() {
  const url = useUrl();
  const path = viewPath(url);
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [sites, setSites] = useState<Site[]>([]);
  const [bootError, setBootError] = useState<string | null>(null);

  const refresh = async () => {
    try {
      const signedIn = await loadMe();
      setSites(signedIn ? await loadSites() : []);
      setMe(signedIn);
      setBootError(null);
    } catch (error) {
      setBootError(errorText(error));
    }
  };
  const top = path.split('/')[0];
  useEffect(() => whenSignedOut(() => setMe(null)), []);
  // Who is signed in is asked once a view needs it: the sign-in and link pages need nobody (they
  // call refresh once someone is).
  useEffect(() => {
    if (me === undefined && !PUBLIC_PAGES.has(top)) void refresh();
  }, [me, top]);

  useEffect(() => {
    const view = NAV.find((item) => item.path === top);
    document.title = `${PUBLIC_PAGES.has(top) ? top.replace('-', ' ') : (view?.label ?? OTHER_TITLES[top] ?? 'Queue')} · Parley dashboard`;
  }, [top]);

  if (top === 'sign-in') return <SignIn url={url} onSignedIn={refresh} />;
  if (top === 'setup') return <Setup onSignedIn={refresh} />;
  if (top === 'accept-invite') return <AcceptInvite onSignedIn={refresh} />;
  if (top === 'reset-password') return <ResetPassword />;

  if (bootError) {
    return (
      <main class="auth" id="main">
        <p class="problem" role="alert">Could not reach Parley: {bootError}</p>
        <button type="button" onClick={refresh}>Try again</button>
      </main>
    );
  }
  if (me === undefined) return <p class="boot" role="status">Loading the dashboard…</p>;
  if (me === null) {
    navigate(`${href('sign-in')}?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true });
    return null;
  }

  const session = {
    me,
    sites,
    reloadSites: async () => setSites(await loadSites()),
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
      <a class="skip" href="#main">Skip to the content</a>
      <header class="top">
        <Link href={href('')} class="brand">Parley</Link>
        <nav aria-label="Dashboard">
          {NAV.filter((item) => !item.adminOnly || administers(me)).map((item) => (
            <Link key={item.path} href={withQuery({ site }, new URL(href(item.path), location.origin))} aria-current={current === item.path ? 'page' : undefined}>
              {item.label}
            </Link>
          ))}
        </nav>
        <div class="who">
          <Link href={href('profile')} aria-current={current === 'profile' ? 'page' : undefined}>
            {me.staff.name}
          </Link>
          <button type="button" class="plain" onClick={signOut}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <View top={current} second={second} url={props.url} />
      </main>
      <Notices />
    </div>
  );
}

function View(props: { top: string; second?: string; url: URL }) {
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
    case 'profile':
      return <ProfileView />;
    default:
      return (
        <section>
          <h1>No such page</h1>
          <p>
            There is nothing at this address. <Link href={href('queue')}>Go to the moderation queue</Link>.
          </p>
        </section>
      );
  }
}
