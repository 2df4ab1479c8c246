import { useState } from 'preact/hooks';
import { api, ApiError, errorText, must, type Answer } from '../client/api.ts';
import { t } from './i18n.ts';
import { chosenSite, useSession, type Site } from './session.ts';
import { SitePicker } from './site-picker.tsx';
import { CopyButton, Dialog, Empty, ErrorNote, Form, Loaded, notify, useLoad, when } from './ui.tsx';
import { eventsToSave, WEBHOOK_EVENTS, type WebhookEvent } from './webhook-events.ts';

export type Delivery = Answer<'/api/sites/{id}/webhooks/deliveries'>['deliveries'][number];

/** A secret Parley generated, shown this once. */
function RevealedSecret(props: { secret: string; onDone: () => void }) {
  return (
    <div class="secret" role="status">
      <span>
        {t('webhooks.secretShown')} <code>{props.secret}</code>
      </span>
      <CopyButton text={props.secret} />
      <button type="button" class="plain" onClick={props.onDone}>{t('webhooks.secretKept')}</button>
    </div>
  );
}

/** Asks before the secret changes, saying what breaks: receivers that check the old one. */
function RotateSecret(props: { onConfirm: () => Promise<void>; onClose: () => void }) {
  return (
    <Dialog title={t('webhooks.rotate.title')} onClose={props.onClose}>
      <Form submit={t('webhooks.rotate.confirm')} onSubmit={props.onConfirm}>
        <p>{t('webhooks.rotate.consequence')}</p>
      </Form>
    </Dialog>
  );
}

function Settings(props: { site: Site; onSaved: (site: Site) => void; onPlanRefusal: (reason: string) => void }) {
  const { site } = props;
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [rotating, setRotating] = useState(false);
  const save = async (body: { webhook_url?: string | null; webhook_events?: WebhookEvent[]; webhook_secret?: null }) => {
    setBusy(true);
    setError(null);
    try {
      const saved = await must(api.PATCH('/api/sites/{id}', { params: { path: { id: site.id } }, body }));
      if (saved.generated_webhook_secret) setSecret(saved.generated_webhook_secret);
      props.onSaved(saved);
      notify(t('webhooks.saved'));
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === 'plan_required') props.onPlanRefusal(failure.message);
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <form
        class="form"
        onSubmit={(event) => {
          event.preventDefault();
          const data = new FormData(event.currentTarget);
          const url = String(data.get('url') ?? '').trim();
          void save({ webhook_url: url || null, webhook_events: eventsToSave((name) => data.get(name) === 'on', site.webhook_events) });
        }}
      >
        <label>
          {t('webhooks.url')}
          <input name="url" type="url" defaultValue={site.webhook_url ?? ''} placeholder="https://example.com/parley-webhook" />
        </label>
        <fieldset>
          <legend>{t('webhooks.events')}</legend>
          {WEBHOOK_EVENTS.map((name) => (
            <label key={name} class="check">
              <input type="checkbox" name={name} defaultChecked={site.webhook_events.includes(name)} />
              {name}
            </label>
          ))}
        </fieldset>
        <p>
          {t('webhooks.secret')} {site.webhook_secret ? <code>{site.webhook_secret}</code> : <span class="note">{t('webhooks.noSecret')}</span>}{' '}
          <button type="button" disabled={busy || !site.webhook_url} onClick={() => (site.webhook_secret ? setRotating(true) : save({ webhook_secret: null }))}>
            {t(site.webhook_secret ? 'webhooks.rotateSecret' : 'webhooks.generateSecret')}
          </button>
        </p>
        {secret && <RevealedSecret secret={secret} onDone={() => setSecret(null)} />}
        <ErrorNote error={error} />
        <button type="submit" class="primary" disabled={busy}>{t(busy ? 'webhooks.saving' : 'webhooks.save')}</button>
      </form>
      {/* Outside the settings' form: the dialog's own form must not submit it. */}
      {rotating && (
        <RotateSecret
          onClose={() => setRotating(false)}
          onConfirm={async () => {
            setRotating(false);
            await save({ webhook_secret: null });
          }}
        />
      )}
    </>
  );
}

/** The body as sent, indented to read (it is JSON; anything else is shown as it is). */
function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** A delivery's attempts, each with its answer, and the body as sent (chat alerts' log shows them too). */
export function DeliveryAttempts(props: { delivery: Delivery }) {
  const { delivery } = props;
  const last = delivery.attempts[delivery.attempts.length - 1];
  return delivery.attempts.length === 0 ? (
    <span class="note">{t('webhooks.notTried')}</span>
  ) : (
    <details>
      <summary>
        {last.status_code === null
          ? t('webhooks.attemptsUnanswered', { count: delivery.attempts.length, ms: last.duration_ms })
          : t('webhooks.attempts', { count: delivery.attempts.length, status: String(last.status_code), ms: last.duration_ms })}
      </summary>
      <ol class="attempts">
        {delivery.attempts.map((attempt) => (
          <li key={attempt.number}>
            {attempt.status_code === null
              ? t('webhooks.attemptUnanswered', { when: when(attempt.at), ms: attempt.duration_ms })
              : t('webhooks.attempt', { when: when(attempt.at), status: String(attempt.status_code), ms: attempt.duration_ms })}
            {attempt.error && <span class="problem-text"> {t('webhooks.attemptError', { error: attempt.error })}</span>}
          </li>
        ))}
      </ol>
      <p class="note">{t('webhooks.body')}</p>
      <pre class="delivery-body" tabIndex={0} aria-label={t('webhooks.bodyOf', { delivery: delivery.id })}>{prettyBody(delivery.body)}</pre>
    </details>
  );
}

function DeliveryRow(props: { siteId: string; delivery: Delivery; onChanged: () => void }) {
  const { delivery } = props;
  const redeliver = async () => {
    try {
      await must(api.POST('/api/sites/{id}/webhooks/deliveries/{deliveryId}/redeliver', { params: { path: { id: props.siteId, deliveryId: delivery.id } } }));
      notify(t('webhooks.requeued'));
      props.onChanged();
    } catch (error) {
      notify(errorText(error), 'error');
    }
  };
  return (
    <tr>
      <td>
        {delivery.event}
        {delivery.test && <span class="badge">{t('webhooks.test')}</span>}
        <div class="note">{delivery.id}</div>
      </td>
      <td>
        <span class={`badge state-${delivery.state}`}>{t('webhooks.state', { state: delivery.state })}</span>
        {delivery.next_attempt_at && <div class="note">{t('webhooks.nextTry', { when: when(delivery.next_attempt_at) })}</div>}
      </td>
      <td>{when(delivery.created_at)}</td>
      <td>
        <DeliveryAttempts delivery={delivery} />
      </td>
      <td>
        {delivery.state !== 'pending' && (
          <button type="button" onClick={redeliver} aria-label={t('webhooks.redeliverLabel', { event: delivery.event, delivery: delivery.id })}>
            {t('webhooks.redeliver')}
          </button>
        )}
      </td>
    </tr>
  );
}

function Deliveries(props: { siteId: string; generation: number }) {
  const [load, reload] = useLoad(() => must(api.GET('/api/sites/{id}/webhooks/deliveries', { params: { path: { id: props.siteId }, query: { limit: 25 } } })), [props.siteId, props.generation]);
  return (
    <Loaded load={load} retry={reload} loading="webhooks.log.loading" failed="webhooks.log.loadFailed">
      {(data) =>
        data.deliveries.length === 0 ? (
          <Empty>{t('webhooks.log.empty')}</Empty>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('webhooks.log.column.event')}</th>
                  <th scope="col">{t('webhooks.log.column.state')}</th>
                  <th scope="col">{t('webhooks.log.column.created')}</th>
                  <th scope="col">{t('webhooks.log.column.attempts')}</th>
                  <th scope="col"><span class="sr">{t('webhooks.log.column.actions')}</span></th>
                </tr>
              </thead>
              <tbody>
                {data.deliveries.map((delivery) => (
                  <DeliveryRow key={delivery.id} siteId={props.siteId} delivery={delivery} onChanged={reload} />
                ))}
              </tbody>
            </table>
            <p class="note">
              {t('webhooks.log.total', { count: data.total })} <button type="button" class="plain" onClick={reload}>{t('webhooks.log.refresh')}</button>
            </p>
          </div>
        )
      }
    </Loaded>
  );
}

/** Webhooks of a site: where they go, which events, the secret, a test, and every delivery with its attempts. */
export function WebhooksView(props: { url: URL }) {
  const { sites, reloadSites } = useSession();
  const chosen = chosenSite(sites, props.url);
  const [load, reload, update] = useLoad(async () => (chosen ? must(api.GET('/api/sites/{id}', { params: { path: { id: chosen.id } } })) : null), [chosen?.id]);
  const [planRefusal, setPlanRefusal] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [testing, setTesting] = useState(false);
  if (!chosen) return <Empty>{t('webhooks.noSite')}</Empty>;

  const sendTest = async () => {
    setTesting(true);
    try {
      const delivery = await must(api.POST('/api/sites/{id}/webhooks/test', { params: { path: { id: chosen.id } }, body: {} }));
      const attempt = delivery.attempts[delivery.attempts.length - 1];
      const said = !attempt
        ? t('webhooks.testQueued')
        : attempt.status_code === null
          ? t('webhooks.testUnanswered', { error: attempt.error ?? '', ms: attempt.duration_ms })
          : t('webhooks.testAnswered', { status: String(attempt.status_code), ms: attempt.duration_ms });
      notify(said, attempt && attempt.status_code !== null && attempt.status_code < 300 ? 'info' : 'error');
    } catch (error) {
      if (error instanceof ApiError && error.code === 'plan_required') setPlanRefusal(error.message);
      notify(errorText(error), 'error');
    } finally {
      setTesting(false);
      setGeneration((n) => n + 1);
    }
  };

  return (
    <section aria-labelledby="webhooks-title">
      <div class="view-head">
        <h1 id="webhooks-title">{t('webhooks.title', { site: chosen.name })}</h1>
        <SitePicker sites={sites} current={chosen} />
      </div>
      {planRefusal && (
        <p class="problem" role="alert">
          {t('webhooks.planRefusal', { reason: planRefusal })}
        </p>
      )}
      <Loaded load={load} retry={reload} loading="webhooks.loading" failed="webhooks.loadFailed">
        {(site) =>
          site && (
            <>
              <div class="panel">
                <h2>{t('webhooks.settings')}</h2>
                <fieldset disabled={planRefusal !== null} class="plain-fieldset">
                  <Settings
                    site={site}
                    onPlanRefusal={setPlanRefusal}
                    onSaved={(saved) => {
                      update(() => saved);
                      void reloadSites();
                    }}
                  />
                </fieldset>
              </div>
              <div class="panel">
                <div class="view-head">
                  <h2>{t('webhooks.log.title')}</h2>
                  <button type="button" disabled={testing || !site.webhook_url || planRefusal !== null} onClick={sendTest}>
                    {t(testing ? 'webhooks.sending' : 'webhooks.sendTest')}
                  </button>
                </div>
                <Deliveries siteId={site.id} generation={generation} />
              </div>
            </>
          )
        }
      </Loaded>
    </section>
  );
}
