import { api, must, type Answer } from '../client/api.ts';
import { useSession } from './session.ts';
import { Form, Loaded, notify, text, useLoad } from './ui.tsx';

type MailChoice = Answer<'/api/auth/me/mail'>['moderation_mail'];
const MAIL_CHOICES: Record<MailChoice, string> = {
  off: 'No moderation mail',
  pending: 'A mail when a comment waits for approval',
  all: 'A mail when a comment waits for approval or is flagged',
};

type Mail = Answer<'/api/auth/me/mail'>;

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

/** Which moderation mails the signed-in staff member gets (GET/PUT /api/auth/me/mail). */
function ModerationMail() {
  const [load, reload, update] = useLoad(() => must(api.GET('/api/auth/me/mail')), []);
  return (
    <Loaded load={load} retry={reload} what="your mail choice">
      {(mail) =>
        mail.mail_enabled ? (
          <Form
            submit="Save the mail choice"
            onSubmit={async (data) => {
              const saved = await must(api.PUT('/api/auth/me/mail', { body: { moderation_mail: text(data, 'moderation_mail') as MailChoice } }));
              update(() => saved);
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
        )
      }
    </Loaded>
  );
}

export function ProfileView() {
  const { me } = useSession();
  return (
    <section aria-labelledby="profile-title">
      <h1 id="profile-title">Your profile</h1>
      <div class="panel">
        <p>
          {me.staff.name} · {me.staff.email}
        </p>
      </div>
      <div class="panel">
        <h2>Mail</h2>
        <ModerationMail />
      </div>
    </section>
  );
}
