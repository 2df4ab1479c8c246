import type { OpenDialogHost } from './api.ts';

/** The page a sign-in comes back to (redirect mode and the email's link): this one, without its fragment. */
const thisPage = () => location.href.split('#')[0];

let fieldIds = 0;

/** The sign-in waiting for a pop-up's answer; the pop-up's page posts it to this page's origin. */
let waiting: { host: OpenDialogHost; message: HTMLElement } | null = null;

function fromPopup(event: MessageEvent): void {
  if (!waiting || event.origin !== new URL(waiting.host.api.base).origin) return;
  const data = event.data as { type?: unknown; session?: { token?: unknown }; detail?: unknown } | null;
  if (data?.type === 'parley:session' && typeof data.session?.token === 'string') {
    const { host } = waiting;
    waiting = null;
    host.signedIn(data.session.token);
  } else if (data?.type === 'parley:sign-in-error') {
    waiting.message.className = 'msg error';
    waiting.message.textContent = waiting.host.t('signInFailed', { detail: String(data.detail ?? '') });
  }
}

/**
 * Signs in with an identity provider in a pop-up on Parley's origin, which hands the session back
 * with postMessage: no cookie of Parley's is needed in this page. Where pop-ups are blocked, the
 * whole page goes to the provider and comes back with the session in its fragment.
 */
function startProvider(host: OpenDialogHost, providerId: string, message: HTMLElement): void {
  const start = (mode: string) =>
    `${host.api.base}/v1/auth/providers/${encodeURIComponent(providerId)}/start?${new URLSearchParams({ site_id: host.siteId, return_to: thisPage(), mode })}`;
  const popup = window.open(start('popup'), 'parley-sign-in', 'popup,width=500,height=650');
  if (!popup) return location.assign(start('redirect'));
  if (!waiting) addEventListener('message', fromPopup);
  waiting = { host, message };
  message.className = 'msg';
  message.textContent = '';
}

/** The address, then the code mailed to it (and a name, for a reader who is new here). */
function emailSteps(host: OpenDialogHost, message: HTMLElement, first: boolean): HTMLElement {
  const { h, submitted, showProblem } = host.kit;
  const t = host.t;
  const steps = h('div');
  const failed = (error: unknown) => showProblem(message, error, t);
  const askAddress = (initial: string) => {
    const id = `parley-email-${++fieldIds}`;
    const address = h('input', { id, type: 'email', name: 'email', autocomplete: 'email', required: true, maxlength: 254, autofocus: first });
    address.value = initial;
    const send = async () => {
      const email = address.value.trim();
      const sent = await host.api.call<{ expires_in: number }>('POST', '/v1/auth/email', { site_id: host.siteId, email, return_to: thisPage() });
      askCode(email, Math.round(sent.expires_in / 60));
    };
    steps.replaceChildren(
      h('form', { onsubmit: submitted(send, failed) }, h('label', { for: id }, t('yourEmail')), address, h('button', { type: 'submit', class: 'primary' }, t('emailCode'))),
    );
    return address;
  };
  const askCode = (email: string, minutes: number) => {
    const id = `parley-code-${++fieldIds}`;
    const sent = h('p', { id: `${id}-sent` }, t('codeSent', { email, minutes }));
    const code = h('input', { id, name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: 6, required: true, 'aria-describedby': sent.id });
    const name = h('input', { id: `${id}-name`, name: 'name', autocomplete: 'nickname', maxlength: 100 });
    const verify = async () => {
      const session = await host.api.call<{ token: string }>('POST', '/v1/auth/email/verify', {
        site_id: host.siteId,
        email,
        code: code.value.trim(),
        ...(name.value.trim() && { name: name.value.trim() }),
      });
      host.signedIn(session.token);
    };
    // A wrong, used or expired code: the server's problems differ, the reader's next step does not.
    const refused = (error: unknown) => showProblem(message, error, t, (problem) => (['rate_limited', 'validation_failed', 'network'].includes(problem.code) ? null : t('error_code_refused')));
    message.textContent = '';
    steps.replaceChildren(
      h(
        'form',
        { onsubmit: submitted(verify, refused) },
        sent,
        h('label', { for: id }, t('code')),
        code,
        h('label', { for: name.id }, t('firstName')),
        name,
        h('button', { type: 'submit', class: 'primary' }, t('verify')),
        h('button', { type: 'button', onclick: () => ((message.textContent = ''), askAddress(email).focus()) }, t('otherAddress')),
      ),
    );
    code.focus();
  };
  askAddress('');
  return steps;
}

/** The "Sign in" dialog: the site's providers, then a code by email where the site offers it. */
export function openSignIn(host: OpenDialogHost): void {
  const { h, modal } = host.kit;
  const t = host.t;
  const { providers, email } = host.settings.sign_in;
  const message = h('p', { class: 'msg', role: 'alert' });
  const buttons = providers.map((provider, index) =>
    h('button', { type: 'button', class: 'provider', autofocus: index === 0, onclick: () => startProvider(host, provider.id, message) }, t('continueWith', { provider: provider.name })),
  );
  modal(
    host.root,
    t('signInTitle'),
    t('close'),
    buttons.length > 0 && h('div', { class: 'providers' }, ...buttons),
    buttons.length > 0 && email && h('p', { class: 'or' }, t('or')),
    email && emailSteps(host, message, buttons.length === 0),
    message,
  );
}
