import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../client/api.ts';
import { t, type MessageKey } from './i18n.ts';
import type { Site } from './session.ts';
import { Dialog, Empty, Form, Loaded, notify, useLoad, when } from './ui.tsx';
import { DeliveryAttempts } from './webhooks.tsx';

type Alert = Answer<'/api/sites/{id}/alerts'>['alerts'][number];
type Kind = Alert['kind'];
type AlertEvent = Alert['events'][number];

const KINDS: Kind[] = ['slack', 'discord', 'telegram', 'matrix'];
const KIND_NAMES: Record<Kind, string> = { slack: 'Slack', discord: 'Discord', telegram: 'Telegram', matrix: 'Matrix' };
/** Every event, with its words: a record over the API's enum, so a new one fails the type check until offered. */
const EVENT_WORDS: Record<AlertEvent, MessageKey> = { 'comment.held': 'alerts.event.held', 'comment.flagged': 'alerts.event.flagged', 'comment.first': 'alerts.event.first' };
const EVENTS = Object.keys(EVENT_WORDS) as AlertEvent[];

/** What a person recognises an alert by: its service and where it posts. */
function targetName(alert: Alert): string {
  const where = alert.target.room ?? alert.target.chat_id ?? new URL(alert.target.url).host;
  return `${KIND_NAMES[alert.kind]} ${where}`;
}

function AddAlert(props: { siteId: string; onAdded: () => void }) {
  const [kind, setKind] = useState<Kind>('slack');
  return (
    <Form
      submit={t('alerts.add')}
      onSubmit={async (data) => {
        const text = (name: string) => String(data.get(name) ?? '').trim() || undefined;
        await must(
          api.POST('/api/sites/{id}/alerts', {
            params: { path: { id: props.siteId } },
            body: {
              kind,
              target: { url: text('url') ?? '', token: text('token'), chat_id: text('chat_id'), room: text('room') },
              events: EVENTS.filter((event) => data.get(event) === 'on'),
              flag_threshold: Number(data.get('flag_threshold') ?? 1),
            },
          }),
        );
        notify(t('alerts.added'));
        props.onAdded();
      }}
    >
      <label>
        {t('alerts.kind')}
        <select name="kind" value={kind} onChange={(event) => setKind(event.currentTarget.value as Kind)}>
          {KINDS.map((k) => (
            <option key={k} value={k}>{KIND_NAMES[k]}</option>
          ))}
        </select>
      </label>
      <label>
        {t('alerts.url', { kind })}
        <input name="url" type="url" required placeholder={kind === 'telegram' ? 'https://api.telegram.org' : kind === 'matrix' ? 'https://matrix.example.org' : 'https://'} />
      </label>
      {(kind === 'telegram' || kind === 'matrix') && (
        <label>
          {t('alerts.token', { kind })}
          <input name="token" type="password" required autocomplete="off" />
        </label>
      )}
      {kind === 'telegram' && (
        <label>
          {t('alerts.chatId')}
          <input name="chat_id" required placeholder="-1001234567890" />
        </label>
      )}
      {kind === 'matrix' && (
        <label>
          {t('alerts.room')}
          <input name="room" required placeholder="!abc123:example.org" />
        </label>
      )}
      <fieldset>
        <legend>{t('alerts.events')}</legend>
        {EVENTS.map((event) => (
          <label key={event} class="check">
            <input type="checkbox" name={event} defaultChecked={event === 'comment.held'} />
            {t(EVENT_WORDS[event])}
          </label>
        ))}
      </fieldset>
      <label>
        {t('alerts.threshold')}
        <input name="flag_threshold" type="number" min={1} max={1000} defaultValue="1" />
      </label>
    </Form>
  );
}

function Messages(props: { siteId: string; alert: Alert; generation: number }) {
  const [load, reload] = useLoad(
    () => must(api.GET('/api/sites/{id}/alerts/{alertId}/deliveries', { params: { path: { id: props.siteId, alertId: props.alert.id }, query: { limit: 10 } } })),
    [props.siteId, props.alert.id, props.generation],
  );
  return (
    <Loaded load={load} retry={reload} loading="alerts.loading" failed="alerts.loadFailed">
      {(data) =>
        data.deliveries.length === 0 ? (
          <p class="note">{t('alerts.logEmpty')}</p>
        ) : (
          <ul class="plain-list">
            {data.deliveries.map((delivery) => (
              <li key={delivery.id}>
                <span class={`badge state-${delivery.state}`}>{t('webhooks.state', { state: delivery.state })}</span> {delivery.event} · {when(delivery.created_at)}{' '}
                <DeliveryAttempts delivery={delivery} />
              </li>
            ))}
          </ul>
        )
      }
    </Loaded>
  );
}

function AlertItem(props: { siteId: string; alert: Alert; onRemoved: () => void }) {
  const { alert } = props;
  const [generation, setGeneration] = useState(0);
  const [removing, setRemoving] = useState(false);
  const [testing, setTesting] = useState(false);
  const name = targetName(alert);
  const path = { id: props.siteId, alertId: alert.id };
  const sendTest = async () => {
    setTesting(true);
    try {
      const delivery = await must(api.POST('/api/sites/{id}/alerts/{alertId}/test', { params: { path } }));
      const attempt = delivery.attempts[delivery.attempts.length - 1];
      const answered = attempt && attempt.status_code !== null;
      notify(
        answered ? t('alerts.testAnswered', { status: String(attempt.status_code), ms: attempt.duration_ms }) : t('alerts.testUnanswered', { error: attempt?.error ?? '', ms: attempt?.duration_ms ?? 0 }),
        answered && attempt.status_code! < 300 ? 'info' : 'error',
      );
    } catch (error) {
      notify(errorText(error), 'error');
    } finally {
      setTesting(false);
      setGeneration((n) => n + 1);
    }
  };
  return (
    <li class="alert-item">
      <div class="view-head">
        <h3>{name}</h3>
        <span>
          <button type="button" disabled={testing} onClick={sendTest} aria-label={t('alerts.testLabel', { target: name })}>{t('alerts.sendTest')}</button>{' '}
          <button type="button" class="danger" onClick={() => setRemoving(true)} aria-label={t('alerts.removeLabel', { target: name })}>{t('alerts.remove')}</button>
        </span>
      </div>
      <p class="note">{alert.events.map((event) => t(EVENT_WORDS[event])).join(' · ')}</p>
      <h4>{t('alerts.log')}</h4>
      <Messages siteId={props.siteId} alert={alert} generation={generation} />
      {removing && (
        <Dialog title={t('alerts.removeTitle')} onClose={() => setRemoving(false)}>
          <Form
            submit={t('alerts.remove')}
            onSubmit={async () => {
              await must(api.DELETE('/api/sites/{id}/alerts/{alertId}', { params: { path } }));
              setRemoving(false);
              notify(t('alerts.removed'));
              props.onRemoved();
            }}
          >
            <p>{t('alerts.removeConsequence')}</p>
          </Form>
        </Dialog>
      )}
    </li>
  );
}

/** A site's chat alerts in its settings: each with a test and its messages, and a form to add one. */
export function AlertsPanel(props: { site: Site }) {
  const [load, reload] = useLoad(() => must(api.GET('/api/sites/{id}/alerts', { params: { path: { id: props.site.id } } })), [props.site.id]);
  // A new form after each alert added, so that its address and token are not left filled in.
  const [added, setAdded] = useState(0);
  return (
    <div class="panel" aria-labelledby="alerts-title">
      <h2 id="alerts-title">{t('alerts.title')}</h2>
      <p class="note">{t('alerts.about')}</p>
      <Loaded load={load} retry={reload} loading="alerts.loading" failed="alerts.loadFailed">
        {(data) =>
          data.alerts.length === 0 ? (
            <Empty>{t('alerts.empty')}</Empty>
          ) : (
            <ul class="plain-list">
              {data.alerts.map((alert) => (
                <AlertItem key={alert.id} siteId={props.site.id} alert={alert} onRemoved={reload} />
              ))}
            </ul>
          )
        }
      </Loaded>
      <h3>{t('alerts.add')}</h3>
      <AddAlert
        key={added}
        siteId={props.site.id}
        onAdded={() => {
          setAdded((n) => n + 1);
          reload();
        }}
      />
    </div>
  );
}
