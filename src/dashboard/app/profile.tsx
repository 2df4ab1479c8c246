import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../client/api.ts';
import { LANGUAGES, localeName, t, type MessageKey } from './i18n.ts';
import { MIN_PASSWORD } from './auth.tsx';
import { useSession } from './session.ts';
import { ErrorNote, Form, Loaded, notify, text, useLoad, when } from './ui.tsx';

type MailChoice = Answer<'/api/auth/me/mail'>['moderation_mail'];
const MAIL_CHOICES: Record<MailChoice, MessageKey> = {
  off: 'profile.mail.off',
  pending: 'profile.mail.pending',
  all: 'profile.mail.all',
};

type Mail = Answer<'/api/auth/me/mail'>;
type Language = Answer<'/api/auth/me'>['language'];

type Frequency = Mail['frequency'];
const FREQUENCIES: Record<Frequency, MessageKey> = {
  instant: 'profile.digest.instant',
  daily: 'profile.digest.daily',
};

/** The browser's own zone first among the runtime's, so that a daily digest comes at its wearer's 08:00 by default. */
function timeZones(own: string): string[] {
  return [own, ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== own)];
}

function MailChoices(props: { mail: Mail }) {
  const off = !props.mail.mail_enabled;
  const [frequency, setFrequency] = useState(props.mail.frequency);
  const zone = props.mail.time_zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  return (
    <>
      <fieldset disabled={off} aria-describedby={off ? 'mail-off' : undefined}>
        <legend>{t('profile.mail.legend')}</legend>
        {(Object.keys(MAIL_CHOICES) as MailChoice[]).map((choice) => (
          <label key={choice} class="check">
            <input type="radio" name="moderation_mail" value={choice} defaultChecked={choice === props.mail.moderation_mail} />
            {t(MAIL_CHOICES[choice])}
          </label>
        ))}
      </fieldset>
      <fieldset disabled={off} aria-describedby={off ? 'mail-off' : undefined}>
        <legend>{t('profile.digest.legend')}</legend>
        {(Object.keys(FREQUENCIES) as Frequency[]).map((choice) => (
          <label key={choice} class="check">
            <input type="radio" name="frequency" value={choice} checked={choice === frequency} onChange={() => setFrequency(choice)} />
            {t(FREQUENCIES[choice])}
          </label>
        ))}
        {frequency === 'daily' && (
          <>
            <label>
              {t('profile.digest.timeZone')}
              <select name="time_zone" aria-describedby="time-zone-help">
                {timeZones(zone).map((name) => (
                  <option key={name} value={name} selected={name === zone}>
                    {name}
                  </option>
                ))}
              </select>
            </label>
            <p class="note" id="time-zone-help">{t('profile.digest.timeZoneHelp')}</p>
          </>
        )}
      </fieldset>
    </>
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
      setOutcome({ sent: t('profile.unconfirmed.sent', { email: sent.email, until: when(sent.expires_at) }), error: null });
    } catch (failure) {
      setOutcome({ sent: null, error: errorText(failure) });
    } finally {
      setBusy(false);
    }
  };
  return props.mailEnabled ? (
    <>
      <p class="note">{t('profile.unconfirmed.why')}</p>
      <button type="button" onClick={resend} disabled={busy}>{busy ? t('profile.unconfirmed.sending') : t('profile.unconfirmed.resend')}</button>
      <p class="note" role="status">{outcome.sent}</p>
      <ErrorNote error={outcome.error} />
    </>
  ) : (
    <p class="note">{t('profile.unconfirmed.mailOff')}</p>
  );
}

/** Which moderation mails the signed-in staff member gets, and how often (GET/PUT /api/auth/me/mail). */
function ModerationMail(props: { mail: Mail; update: (change: (mail: Mail) => Mail) => void }) {
  const mail = props.mail;
  return mail.mail_enabled ? (
    <Form
      submit={t('profile.mail.save')}
      onSubmit={async (data) => {
        const frequency = text(data, 'frequency') as Frequency;
        // The zone is only asked for a daily digest; an instant choice leaves the saved one as it was.
        const zone = frequency === 'daily' ? { time_zone: text(data, 'time_zone') } : {};
        const saved = await must(api.PUT('/api/auth/me/mail', { body: { moderation_mail: text(data, 'moderation_mail') as MailChoice, frequency, ...zone } }));
        props.update(() => saved);
        notify(t('profile.mail.saved'));
      }}
    >
      <MailChoices mail={mail} />
    </Form>
  ) : (
    <>
      {/* Nothing to save: the choice is shown as it stands, and why it cannot change. */}
      <p class="note" id="mail-off">
        {t('profile.mail.serverOff')}
      </p>
      <MailChoices mail={mail} />
    </>
  );
}

/**
 * The language of the dashboard and of Parley's mails to the staff member: each language by its own
 * name, or the browser's (null).
 */
function LanguageChoice() {
  const { me, chooseLanguage } = useSession();
  return (
    <Form
      submit={t('profile.saveLanguage')}
      onSubmit={async (data) => {
        await chooseLanguage((text(data, 'language') || null) as Language);
        notify(t('profile.languageSaved'));
      }}
    >
      <label>
        {t('profile.language')}
        <select name="language" aria-describedby="language-help">
          <option value="" selected={me.language === null}>{t('profile.browserLanguage')}</option>
          {LANGUAGES.map((locale) => (
            <option key={locale} value={locale} lang={locale} selected={me.language === locale}>
              {localeName(locale)}
            </option>
          ))}
        </select>
      </label>
      <p class="note" id="language-help">{t('profile.languageHelp')}</p>
    </Form>
  );
}

/** A new password, proved by the current one; every other session then ends (the list shows it). */
function PasswordChange(props: { onChanged: () => void }) {
  return (
    <Form
      submit={t('profile.password.submit')}
      onSubmit={async (data) => {
        const changed = await must(api.POST('/api/auth/password', { body: { current_password: String(data.get('current')), new_password: String(data.get('new')) } }));
        notify(t('profile.password.changed', { count: changed.ended_sessions }));
        props.onChanged();
      }}
    >
      <label>
        {t('profile.password.current')}
        <input name="current" type="password" autocomplete="current-password" required maxLength={1000} />
      </label>
      <label>
        {t('profile.password.new', { min: MIN_PASSWORD })}
        <input name="new" type="password" autocomplete="new-password" required minLength={MIN_PASSWORD} maxLength={200} />
      </label>
    </Form>
  );
}

type StaffSession = Answer<'/api/auth/sessions'>['sessions'][number];

/** The places the person is signed in, this one marked; any other can be ended from here. */
function Sessions(props: { generation: number }) {
  const [load, reload] = useLoad(() => must(api.GET('/api/auth/sessions')), [props.generation]);
  const end = async (session: StaffSession) => {
    try {
      await must(api.DELETE('/api/auth/sessions/{id}', { params: { path: { id: session.id } } }));
      notify(t('profile.sessions.ended'));
      await reload();
    } catch (error) {
      notify(errorText(error), 'error');
    }
  };
  return (
    <Loaded load={load} retry={reload} loading="profile.sessions.loading" failed="profile.sessions.loadFailed">
      {(data) => (
        <ul class="sessions">
          {data.sessions.map((session) => (
            <li key={session.id}>
              <span>
                <bdi>{session.user_agent ?? t('profile.sessions.unknownBrowser')}</bdi>
                <span class="note"> {t('profile.sessions.from', { ip: session.ip, when: when(session.created_at) })}</span>
              </span>
              {session.current ? (
                <span class="badge">{t('profile.sessions.current')}</span>
              ) : (
                <button type="button" onClick={() => end(session)} aria-label={t('profile.sessions.endLabel', { ip: session.ip, when: when(session.created_at) })}>
                  {t('profile.sessions.end')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </Loaded>
  );
}

export function ProfileView() {
  const { me } = useSession();
  const [load, reload, update] = useLoad(() => must(api.GET('/api/auth/me/mail')), []);
  const [generation, setGeneration] = useState(0);
  return (
    <section aria-labelledby="profile-title">
      <h1 id="profile-title">{t('profile.title')}</h1>
      <div class="panel">
        <p>
          <bdi>{me.staff.name}</bdi> · <bdi>{me.staff.email}</bdi> {!me.staff.email_verified && <span class="badge status-pending">{t('profile.unconfirmed')}</span>}
        </p>
        {!me.staff.email_verified && (
          <Loaded load={load} retry={reload} loading="profile.loadingServerMail" failed="profile.loadFailedServerMail">
            {(mail) => <UnconfirmedAddress mailEnabled={mail.mail_enabled} />}
          </Loaded>
        )}
      </div>
      <div class="panel">
        <h2>{t('profile.mail')}</h2>
        <Loaded load={load} retry={reload} loading="profile.loadingMail" failed="profile.loadFailedMail">
          {(mail) => <ModerationMail mail={mail} update={update} />}
        </Loaded>
      </div>
      <div class="panel">
        <h2>{t('profile.language')}</h2>
        <LanguageChoice />
      </div>
      <div class="panel">
        <h2>{t('auth.password')}</h2>
        {/* Drawn afresh once changed, so that no password stays in the fields. */}
        <PasswordChange key={generation} onChanged={() => setGeneration((n) => n + 1)} />
      </div>
      <div class="panel">
        <h2>{t('profile.sessions.title')}</h2>
        <Sessions generation={generation} />
      </div>
    </section>
  );
}
