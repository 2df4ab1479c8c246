import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../client/api.ts';
import { href, navigate } from './router.ts';
import { useSession, type Site } from './session.ts';
import { SpamPanel } from './spam.tsx';
import { CopyButton, Empty, Form, Link, Loaded, notify, Table, text, useLoad, when } from './ui.tsx';

const MODES = { none: 'Publish at once', guests: "Hold guests' comments for approval", all: 'Hold every comment for approval' } as const;
const list = (value: string) => value.split(/[\s,]+/).map((part) => part.trim()).filter(Boolean);

export function SitesView() {
  const { sites, reloadSites } = useSession();
  return (
    <section aria-labelledby="sites-title">
      <h1 id="sites-title">Sites</h1>
      {sites.length === 0 ? (
        <Empty>No site yet: create the first one below, then add its embed snippet to your pages.</Empty>
      ) : (
        <Table columns={['Site', 'Domains', 'New comments', 'Created']} panel>
          {sites.map((site) => (
            <tr key={site.id}>
              <td>
                <Link href={href(`sites/${site.id}`)}>{site.name}</Link>
                <div class="note">{site.id}</div>
              </td>
              <td>{site.domains.join(', ') || <span class="note">any</span>}</td>
              <td>{MODES[site.moderation_mode]}</td>
              <td>{when(site.created_at)}</td>
            </tr>
          ))}
        </Table>
      )}
      <div class="panel">
        <h2>Create a site</h2>
        <Form
          submit="Create the site"
          onSubmit={async (data) => {
            const site = await must(api.POST('/api/sites', { body: { name: text(data, 'name'), domains: list(text(data, 'domains')) } }));
            await reloadSites();
            notify(`${site.name} is created`);
            navigate(href(`sites/${site.id}`));
          }}
        >
          <label>
            Name<input name="name" required maxLength={200} />
          </label>
          <label>
            Domains (where the widget may post; separated by spaces or commas, empty for any)<input name="domains" placeholder="blog.example.com" />
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
      submit="Save the settings"
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
            },
          }),
        );
        props.onSaved(saved);
        notify('The settings are saved');
      }}
    >
      <label>
        Name<input name="name" required maxLength={200} defaultValue={site.name} />
      </label>
      <label>
        Domains (separated by spaces or commas; empty for any)<input name="domains" defaultValue={site.domains.join(', ')} />
      </label>
      <label>
        New comments
        <select name="moderation_mode">
          {Object.entries(MODES).map(([mode, label]) => (
            <option key={mode} value={mode} selected={mode === site.moderation_mode}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label class="check">
        <input type="checkbox" name="allow_guests" defaultChecked={site.allow_guests} />
        Guests may comment without signing in
      </label>
      <label class="check">
        <input type="checkbox" name="live_updates" defaultChecked={site.live_updates} />
        Readers see new comments as they come (live updates)
      </label>
      <label>
        Reactions (separated by spaces or commas; empty for none)<input name="reactions" defaultValue={site.reactions.join(', ')} />
      </label>
    </Form>
  );
}

function Threads(props: { siteId: string }) {
  const [load, reload, update] = useLoad(() => must(api.GET('/api/sites/{id}/threads', { params: { path: { id: props.siteId }, query: { limit: 20 } } })), [props.siteId]);
  const toggle = async (thread: Answer<'/api/sites/{id}/threads'>['threads'][number]) => {
    try {
      const changed = await must(api.PATCH('/api/sites/{id}/threads/{thread_id}', { params: { path: { id: props.siteId, thread_id: thread.id } }, body: { closed: !thread.closed } }));
      update((data) => ({ ...data, threads: data.threads.map((t) => (t.id === changed.id ? changed : t)) }));
      notify(changed.closed ? 'The thread is closed to new comments' : 'The thread is open again');
    } catch (error) {
      notify(errorText(error), 'error');
    }
  };
  return (
    <Loaded load={load} retry={reload} what="the threads">
      {(data) =>
        data.threads.length === 0 ? (
          <p class="note">No thread yet: a thread starts with the first comment on a page.</p>
        ) : (
          <Table columns={['Thread', 'Comments', 'Last activity', 'State']}>
            {data.threads.map((thread) => (
              <tr key={thread.id}>
                <td>
                  <Link href={`${href('thread')}?site=${props.siteId}&url=${encodeURIComponent(thread.url)}`}>{thread.title ?? thread.url}</Link>
                </td>
                <td>
                  {thread.comments.published} published, {thread.comments.pending} pending
                </td>
                <td>{when(thread.last_activity_at)}</td>
                <td>
                  <button type="button" onClick={() => toggle(thread)} aria-label={`${thread.closed ? 'Reopen' : 'Close'} ${thread.title ?? thread.url}`}>
                    {thread.closed ? 'Reopen' : 'Close'}
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
  return (
    <Loaded load={load} retry={reload} what="the site">
      {(site) => (
        <section aria-labelledby="site-title">
          <div class="view-head">
            <h1 id="site-title">{site.name}</h1>
            <Link href={href('sites')}>All sites</Link>
          </div>
          <div class="panel">
            <h2>Settings</h2>
            <SettingsForm
              site={site}
              onSaved={(saved) => {
                update(() => saved);
                setPreviewKey((n) => n + 1);
                void reloadSites();
              }}
            />
          </div>
          <div class="panel">
            <h2>Spam defence</h2>
            <p class="note">New comments go through these checks in order; a comment that fails one is held for approval, or refused for a banned word.</p>
            <SpamPanel site={site} onSaved={(saved) => update(() => saved)} />
          </div>
          <div class="panel">
            <h2>Embed</h2>
            <p>Paste this where comments belong on each page; the thread is the page's address.</p>
            <pre>
              <code>{embedSnippet(site.id)}</code>
            </pre>
            <CopyButton text={embedSnippet(site.id)} label="Copy the snippet" />
            <h3>Preview</h3>
            <iframe key={previewKey} class="preview" title={`The comments widget of ${site.name} on a sample thread`} src={`/dashboard/preview?site_id=${encodeURIComponent(site.id)}`} />
          </div>
          <div class="panel">
            <h2>Threads</h2>
            <Threads siteId={site.id} />
          </div>
        </section>
      )}
    </Loaded>
  );
}
