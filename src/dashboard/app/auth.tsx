import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, must, setCsrfToken } from '../client/api.ts';
import { t, tx } from './i18n.ts';
import { href, navigate } from './router.ts';
import { Form, Link, text } from './ui.tsx';

/** The token of a link Parley made (`/dashboard/setup#token=...`): in the fragment, never sent to a server. */
function linkToken(): string {
  return new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
}

function AuthFrame(props: { title: string; intro?: string; children: ComponentChildren }) {
  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="brand">Parley</p>
        <h1>{props.title}</h1>
        {props.intro && <p class="note">{props.intro}</p>}
        {props.children}
      </div>
    </main>
  );
}

/** The server's least password length (src/staff/passwords.ts), said before it refuses. */
export const MIN_PASSWORD = 10;

const Email = () => (
  <label>
    {t('auth.email')}
    <input name="email" type="email" autocomplete="email" required maxLength={254} />
  </label>
);
const Name = () => (
  <label>
    {t('auth.name')}
    <input name="name" autocomplete="name" required maxLength={100} />
  </label>
);
const NewPassword = () => (
  <label>
    {t('auth.newPassword', { min: MIN_PASSWORD })}
    <input name="password" type="password" autocomplete="new-password" required minLength={MIN_PASSWORD} maxLength={200} />
  </label>
);

function MissingToken() {
  return (
    <p class="problem" role="alert">
      {tx('auth.missingToken', { token: <code>#token=…</code> })}
    </p>
  );
}

async function signIn(email: string, password: string, onSignedIn: () => Promise<void>, next = href('')) {
  const answer = await must(api.POST('/api/auth/login', { body: { email, password } }));
  setCsrfToken(answer.csrf_token);
  await onSignedIn();
  navigate(next.startsWith('/dashboard') ? next : href(''), { replace: true });
}

export function SignIn(props: { onSignedIn: () => Promise<void>; url: URL }) {
  const notice = props.url.searchParams.get('notice');
  return (
    <AuthFrame title={t('auth.signIn.title')}>
      {notice && <p class="notice info" role="status">{notice}</p>}
      <Form submit={t('auth.signIn.submit')} onSubmit={(data) => signIn(text(data, 'email'), String(data.get('password')), props.onSignedIn, props.url.searchParams.get('next') ?? undefined)}>
        <Email />
        <label>
          {t('auth.password')}
          <input name="password" type="password" autocomplete="current-password" required maxLength={1000} />
        </label>
      </Form>
      <p class="note">{t('auth.forgot')}</p>
    </AuthFrame>
  );
}

export function Setup(props: { onSignedIn: () => Promise<void> }) {
  const token = linkToken();
  return (
    <AuthFrame title={t('auth.setup.title')} intro={t('auth.setup.intro')}>
      {!token ? (
        <MissingToken />
      ) : (
        <Form
          submit={t('auth.setup.submit')}
          onSubmit={async (data) => {
            await must(api.POST('/api/auth/setup', { body: { token, email: text(data, 'email'), name: text(data, 'name'), password: String(data.get('password')) } }));
            await signIn(text(data, 'email'), String(data.get('password')), props.onSignedIn);
          }}
        >
          <Name />
          <Email />
          <NewPassword />
        </Form>
      )}
    </AuthFrame>
  );
}

export function AcceptInvite(props: { onSignedIn: () => Promise<void> }) {
  const token = linkToken();
  const [known, setKnown] = useState(false);
  return (
    <AuthFrame title={t('auth.invite.title')} intro={t('auth.invite.intro')}>
      {!token ? (
        <MissingToken />
      ) : (
        <Form
          submit={t('auth.invite.submit')}
          onSubmit={async (data) => {
            const email = text(data, 'email');
            const password = String(data.get('password'));
            await must(api.POST('/api/auth/invites/accept', { body: { token, email, password, ...(known ? {} : { name: text(data, 'name') }) } }));
            await signIn(email, password, props.onSignedIn);
          }}
        >
          <label class="check">
            <input type="checkbox" checked={known} onChange={(event) => setKnown(event.currentTarget.checked)} />
            {t('auth.invite.known')}
          </label>
          {!known && <Name />}
          <Email />
          {known ? (
            <label>
              {t('auth.invite.password')}
              <input name="password" type="password" autocomplete="current-password" required maxLength={1000} />
            </label>
          ) : (
            <NewPassword />
          )}
        </Form>
      )}
    </AuthFrame>
  );
}

export function ResetPassword() {
  const token = linkToken();
  return (
    <AuthFrame title={t('auth.reset.title')} intro={t('auth.reset.intro')}>
      {!token ? (
        <MissingToken />
      ) : (
        <Form
          submit={t('auth.reset.submit')}
          onSubmit={async (data) => {
            await must(api.POST('/api/auth/reset', { body: { token, password: String(data.get('password')) } }));
            navigate(`${href('sign-in')}?notice=${encodeURIComponent(t('auth.reset.done'))}`, { replace: true });
          }}
        >
          <NewPassword />
        </Form>
      )}
      <p class="note">
        <Link href={href('sign-in')}>{t('auth.backToSignIn')}</Link>
      </p>
    </AuthFrame>
  );
}
