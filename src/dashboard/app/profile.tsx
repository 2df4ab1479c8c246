import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../client/api.ts';
import { useSession } from './session.ts';
import { ErrorNote, Form, Loaded, notify, text, useLoad, when } from './ui.tsx';

type MailChoice = Answer<'/api/auth/me/mail'>['moderation_mail'];
const MAIL_CHOICES: Record<MailChoice, string> = {
  off: 'No moderation mail',
  pending: 'A mail when a comment waits for approval',
  all: 'A mail when a comment waits for approval or is flagged',
};

type Mail = Answer<'/api/auth/me/mail'>;

const ADDRESS = {
  unconfirmed: 'Not confirmed',
  why: 'Parley sends nothing to this address (no moderation mail, no reset link) until you follow the link mailed to it when you joined. Until then, anyone who confirms the address first takes it over.',
  resend: 'Send the link again',
  sending: 'Sending…',
  sent: (email: string, expiresAt: string) => `A new link is on its way to ${email}. It works once, until ${when(expiresAt)}; the earlier link no longer works.`,
  mailOff: 'This server sends no mail (its administrator has not set up an SMTP server), so no link can confirm the address for now. It stays unconfirmed, and the team sees it so.',
};

function MailChoices(props: { mail: Mail }) {
  const off = !props.mail.mail_enabled;
  return (
    <fieldset disabled={off} aria-describedby={off ? 'mail-off' : undefined}>
      <legend>Moderation mail for the sites you moderate</legend>
      {(Object.keys(MAIL_CHOICES) as MailChoice[]).map((choice) => (
        <label key={choice} class="check">
          <input type="radio" name="moderation_mail" value={choice} defaultChecked={choice === props.mail.moderation_mail} />
          {MAIL_CHOICES[choice]}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * An address not confirmed yet: why it matters, and a new link on request (the mailed one lasts 7
 * days), or why none can be sent.
 */
function UnconfirmedAddress(props: { mailEnabled: boolean }) {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ sent: string | null; error: string | null }>({ sent: null, error: null });
  const resend = async () => {
    setBusy(true);
    setOutcome({ sent: null, error: null });
    try {
      const sent = await must(api.POST('/api/auth/verify-email/resend'));
      setOutcome({ sent: ADDRESS.sent(sent.email, sent.expires_at), error: null });
    } catch (failure) {
      setOutcome({ sent: null, error: errorText(failure) });
    } finally {
      setBusy(false);
    }
  };
  return props.mailEnabled ? (
    <>
      <p class="note">{ADDRESS.why}</p>
      <button type="button" onClick={resend} disabled={busy}>{busy ? ADDRESS.sending : ADDRESS.resend}</button>
      <p class="note" role="status">{outcome.sent}</p>
      <ErrorNote error={outcome.error} />
    </>
  ) : (
    <p class="note">{ADDRESS.mailOff}</p>
  );
}

/** Which moderation mails the signed-in staff member gets (GET/PUT /api/auth/me/mail). */
function ModerationMail(props: { mail: Mail; update: (change: (mail: Mail) => Mail) => void }) {
  const mail = props.mail;
  return mail.mail_enabled ? (
    <Form
      submit="Save the mail choice"
      onSubmit={async (data) => {
        const saved = await must(api.PUT('/api/auth/me/mail', { body: { moderation_mail: text(data, 'moderation_mail') as MailChoice } }));
        props.update(() => saved);
        notify('Your mail choice is saved');
      }}
    >
      <MailChoices mail={mail} />
    </Form>
  ) : (
    <>
      {/* Nothing to save: the choice is shown as it stands, and why it cannot change. */}
      <p class="note" id="mail-off">
        This server sends no mail (its administrator has not set up an SMTP server), so moderation mail cannot be chosen here; the queue shows new comments as they come.
      </p>
      <MailChoices mail={mail} />
    </>
  );
}

export function ProfileView() {
  const { me } = useSession();
  const [load, reload, update] = useLoad(() => must(api.GET('/api/auth/me/mail')), []);
  return (
    <section aria-labelledby="profile-title">
      <h1 id="profile-title">Your profile</h1>
      <div class="panel">
        <p>
          {me.staff.name} · {me.staff.email} {!me.staff.email_verified && <span class="badge status-pending">{ADDRESS.unconfirmed}</span>}
        </p>
        {!me.staff.email_verified && (
          <Loaded load={load} retry={reload} what="whether this server sends mail">
            {(mail) => <UnconfirmedAddress mailEnabled={mail.mail_enabled} />}
          </Loaded>
        )}
      </div>
      <div class="panel">
        <h2>Mail</h2>
        <Loaded load={load} retry={reload} what="your mail choice">
          {(mail) => <ModerationMail mail={mail} update={update} />}
        </Loaded>
      </div>
    </section>
  );
}
