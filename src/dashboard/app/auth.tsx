import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, must, setCsrfToken } from '../client/api.ts';
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

const Email = () => (
  <label>
    Email<input name="email" type="email" autocomplete="email" required maxLength={254} />
  </label>
);
const Name = () => (
  <label>
    Your name<input name="name" autocomplete="name" required maxLength={100} />
  </label>
);
const NewPassword = () => (
  <label>
    Password (10 characters or more)<input name="password" type="password" autocomplete="new-password" required minLength={10} maxLength={200} />
  </label>
);

function MissingToken() {
  return (
    <p class="problem" role="alert">
      This page needs the whole link you were given (it ends with <code>#token=…</code>). Open the link again, or ask for a new one.
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
    <AuthFrame title="Sign in">
      {notice && <p class="notice info" role="status">{notice}</p>}
      <Form submit="Sign in" onSubmit={(data) => signIn(text(data, 'email'), String(data.get('password')), props.onSignedIn, props.url.searchParams.get('next') ?? undefined)}>
        <Email />
        <label>
          Password<input name="password" type="password" autocomplete="current-password" required maxLength={1000} />
        </label>
      </Form>
      <p class="note">Forgot your password? An owner or admin of your team can give you a reset link.</p>
    </AuthFrame>
  );
}

export function Setup(props: { onSignedIn: () => Promise<void> }) {
  const token = linkToken();
  return (
    <AuthFrame title="Set up Parley" intro="You are the first person here: you become the owner of this Parley's account.">
      {!token ? (
        <MissingToken />
      ) : (
        <Form
          submit="Create my owner account"
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
    <AuthFrame title="Join the team" intro="You were invited to moderate or run sites on Parley.">
      {!token ? (
        <MissingToken />
      ) : (
        <Form
          submit="Join"
          onSubmit={async (data) => {
            const email = text(data, 'email');
            const password = String(data.get('password'));
            await must(api.POST('/api/auth/invites/accept', { body: { token, email, password, ...(known ? {} : { name: text(data, 'name') }) } }));
            await signIn(email, password, props.onSignedIn);
          }}
        >
          <label class="check">
            <input type="checkbox" checked={known} onChange={(event) => setKnown(event.currentTarget.checked)} />I already have a Parley staff sign-in
          </label>
          {!known && <Name />}
          <Email />
          {known ? (
            <label>
              Your password<input name="password" type="password" autocomplete="current-password" required maxLength={1000} />
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
    <AuthFrame title="Choose a new password" intro="Every session of yours ends: you sign in again with the new password.">
      {!token ? (
        <MissingToken />
      ) : (
        <Form
          submit="Set the new password"
          onSubmit={async (data) => {
            await must(api.POST('/api/auth/reset', { body: { token, password: String(data.get('password')) } }));
            navigate(`${href('sign-in')}?notice=${encodeURIComponent('Your password is changed: sign in with it.')}`, { replace: true });
          }}
        >
          <NewPassword />
        </Form>
      )}
      <p class="note">
        <Link href={href('sign-in')}>Back to sign-in</Link>
      </p>
    </AuthFrame>
  );
}
