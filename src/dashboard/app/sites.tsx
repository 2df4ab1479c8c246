import { AlertsPanel } from './alerts.tsx';
import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../client/api.ts';
import { href, navigate } from './router.ts';
import { t, type MessageKey } from './i18n.ts';
import { useSession, type Site } from './session.ts';
import { LanguagePanel } from './site-language.tsx';
import { SpamPanel } from './spam.tsx';
import { CopyButton, Empty, Form, Link, Loaded, notify, Table, text, useLoad, when } from './ui.tsx';

const MODES: Record<Site['moderation_mode'], MessageKey> = { none: 'sites.mode.none', guests: 'sites.mode.guests', all: 'sites.mode.all' };
const list = (value: string) => value.split(/[\s,]+/).map((part) => part.trim()).filter(Boolean);

export function SitesView() {
  const { sites, reloadSites } = useSession();
  return (
    <section aria-labelledby="sites-title">
      <h1 id="sites-title">{t('sites.title')}</h1>
      {sites.length === 0 ? (
        <Empty>{t('sites.empty')}</Empty>
      ) : (
        <Table columns={[t('sites.column.site'), t('sites.column.domains'), t('sites.column.moderation'), t('sites.column.created')]} panel>
          {sites.map((site) => (
            <tr key={site.id}>
              <td>
                <Link href={href(`sites/${site.id}`)}>{site.name}</Link>
                <div class="note">{site.id}</div>
              </td>
              <td>{site.domains.join(', ') || <span class="note">{t('sites.anyDomain')}</span>}</td>
              <td>{t(MODES[site.moderation_mode])}</td>
              <td>{when(site.created_at)}</td>
            </tr>
          ))}
        </Table>
      )}
      <div class="panel">
        <h2>{t('sites.create.title')}</h2>
        <Form
          submit={t('sites.create.submit')}
          onSubmit={async (data) => {
            const site = await must(api.POST('/api/sites', { body: { name: text(data, 'name'), domains: list(text(data, 'domains')) } }));
            await reloadSites();
            notify(t('sites.create.done', { name: site.name }));
            navigate(href(`sites/${site.id}`));
          }}
        >
          <label>
            {t('sites.field.name')}
            <input name="name" required maxLength={200} />
          </label>
          <label>
            {t('sites.create.domains')}
            <input name="domains" placeholder="blog.example.com" />
          </label>
        </Form>
      </div>
    </section>
  );
}

function SettingsForm(props: { site: Site; onSaved: (site: Site) => void }) {
  const { site } = props;
  return (
    <Form
      submit={t('sites.settings.submit')}
      onSubmit={async (data) => {
        const saved = await must(
          api.PATCH('/api/sites/{id}', {
            params: { path: { id: site.id } },
            body: {
              name: text(data, 'name'),
              domains: list(text(data, 'domains')),
              moderation_mode: text(data, 'moderation_mode') as Site['moderation_mode'],
              allow_guests: data.get('allow_guests') === 'on',
              live_updates: data.get('live_updates') === 'on',
              reactions: list(text(data, 'reactions')),
              contact: text(data, 'contact') || null,
            },
          }),
        );
        props.onSaved(saved);
        notify(t('sites.settings.saved'));
      }}
    >
      <label>
        {t('sites.field.name')}
        <input name="name" required maxLength={200} defaultValue={site.name} />
      </label>
      <label>
        {t('sites.settings.domains')}
        <input name="domains" defaultValue={site.domains.join(', ')} />
      </label>
      <label>
        {t('sites.settings.moderation')}
        <select name="moderation_mode">
          {Object.entries(MODES).map(([mode, label]) => (
            <option key={mode} value={mode} selected={mode === site.moderation_mode}>
              {t(label)}
            </option>
          ))}
        </select>
      </label>
      <label class="check">
        <input type="checkbox" name="allow_guests" defaultChecked={site.allow_guests} />
        {t('sites.settings.allowGuests')}
      </label>
      <label class="check">
        <input type="checkbox" name="live_updates" defaultChecked={site.live_updates} />
        {t('sites.settings.liveUpdates')}
      </label>
      <label>
        {t('sites.settings.reactions')}
        <input name="reactions" defaultValue={site.reactions.join(', ')} />
      </label>
      <label>
        {t('contests.contact')}
        <input name="contact" maxLength={500} defaultValue={site.contact ?? ''} placeholder="moderation@example.com" aria-describedby="site-contact-about" />
      </label>
      <span id="site-contact-about" class="note hint">
        {t('contests.contactHelp')}
      </span>
    </Form>
  );
}

function Threads(props: { siteId: string }) {
  const [load, reload, update] = useLoad(() => must(api.GET('/api/sites/{id}/threads', { params: { path: { id: props.siteId }, query: { limit: 20 } } })), [props.siteId]);
  const toggle = async (thread: Answer<'/api/sites/{id}/threads'>['threads'][number]) => {
    try {
      const changed = await must(api.PATCH('/api/sites/{id}/threads/{thread_id}', { params: { path: { id: props.siteId, thread_id: thread.id } }, body: { closed: !thread.closed } }));
      update((data) => ({ ...data, threads: data.threads.map((t) => (t.id === changed.id ? changed : t)) }));
      notify(t(changed.closed ? 'sites.threads.closed' : 'sites.threads.reopened'));
    } catch (error) {
      notify(errorText(error), 'error');
    }
  };
  return (
    <Loaded load={load} retry={reload} loading="sites.threads.loading" failed="sites.threads.loadFailed">
      {(data) =>
        data.threads.length === 0 ? (
          <p class="note">{t('sites.threads.empty')}</p>
        ) : (
          <Table columns={[t('sites.threads.column.thread'), t('sites.threads.column.comments'), t('sites.threads.column.lastActivity'), t('sites.threads.column.state')]}>
            {data.threads.map((thread) => (
              <tr key={thread.id}>
                <td>
                  <Link href={`${href('thread')}?site=${props.siteId}&url=${encodeURIComponent(thread.url)}`}>{thread.title ?? thread.url}</Link>
                </td>
                <td>{t('sites.threads.comments', { published: thread.comments.published, pending: thread.comments.pending })}</td>
                <td>{when(thread.last_activity_at)}</td>
                <td>
                  <button type="button" onClick={() => toggle(thread)} aria-label={t(thread.closed ? 'sites.threads.reopenLabel' : 'sites.threads.closeLabel', { thread: thread.title ?? thread.url })}>
                    {t(thread.closed ? 'sites.threads.reopen' : 'sites.threads.close')}
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )
      }
    </Loaded>
  );
}

export function embedSnippet(siteId: string): string {
  return `<script src="${location.origin}/embed.js" async></script>\n<parley-comments site-id="${siteId}"></parley-comments>`;
}

export function SiteSettingsView(props: { siteId: string }) {
  const { reloadSites } = useSession();
  const [load, reload, update] = useLoad(() => must(api.GET('/api/sites/{id}', { params: { path: { id: props.siteId } } })), [props.siteId]);
  const [previewKey, setPreviewKey] = useState(0);
  // The preview shows what readers see, so it reloads whenever a setting changes.
  const saved = (site: Site) => {
    update(() => site);
    setPreviewKey((n) => n + 1);
    void reloadSites();
  };
  return (
    <Loaded load={load} retry={reload} loading="sites.loading" failed="sites.loadFailed">
      {(site) => (
        <section aria-labelledby="site-title">
          <div class="view-head">
            <h1 id="site-title">{site.name}</h1>
            <Link href={href('sites')}>{t('sites.all')}</Link>
          </div>
          <div class="panel">
            <h2>{t('sites.settings.title')}</h2>
            <SettingsForm site={site} onSaved={saved} />
          </div>
          <LanguagePanel site={site} onSaved={saved} />
          <div class="panel">
            <h2>{t('sites.spam.title')}</h2>
            <p class="note">{t('sites.spam.about')}</p>
            <SpamPanel site={site} onSaved={(saved) => update(() => saved)} />
          </div>
          <AlertsPanel site={site} />
          <div class="panel">
            <h2>{t('sites.embed.title')}</h2>
            <p>{t('sites.embed.about')}</p>
            <pre>
              <code>{embedSnippet(site.id)}</code>
            </pre>
            <CopyButton text={embedSnippet(site.id)} label={t('sites.embed.copy')} />
            <h3>{t('sites.embed.preview')}</h3>
            <iframe key={previewKey} class="preview" title={t('sites.embed.previewTitle', { site: site.name })} src={`/dashboard/preview?site_id=${encodeURIComponent(site.id)}`} />
          </div>
          <div class="panel">
            <h2>{t('sites.threads.title')}</h2>
            <Threads siteId={site.id} />
          </div>
        </section>
      )}
    </Loaded>
  );
}
