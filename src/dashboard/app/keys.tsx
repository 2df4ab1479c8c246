import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../client/api.ts';
import { useSession } from './session.ts';
import { CopyButton, Empty, Form, Loaded, notify, Table, text, useLoad, when } from './ui.tsx';

type Key = Answer<'/api/keys'>['keys'][number];
const ROLES = { admin: 'Admin: everything, as the owner', moderator: 'Moderator: moderation only', integration: "Integration: sign readers in, post as the site" } as const;

/** API keys: created here (the secret shown once), listed with their last use, revoked. */
export function KeysView() {
  const { sites } = useSession();
  const [showRevoked, setShowRevoked] = useState(false);
  const [load, reload] = useLoad(() => must(api.GET('/api/keys', { params: { query: { include_revoked: showRevoked } } })), [showRevoked]);
  const [created, setCreated] = useState<Answer<'/api/keys', 'post'> | null>(null);
  const siteName = (id: string) => sites.find((site) => site.id === id)?.name ?? id;

  const revoke = async (key: Key) => {
    if (!confirm(`Revoke ${key.name}? Requests with it are refused from now on.`)) return;
    try {
      await must(api.DELETE('/api/keys/{id}', { params: { path: { id: key.id } } }));
      notify(`${key.name} is revoked`);
      await reload();
    } catch (error) {
      notify(errorText(error), 'error');
    }
  };

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <div class="panel">
        <h2>Create a key</h2>
        <Form
          class="inline-form"
          submit="Create the key"
          onSubmit={async (data) => {
            const site = text(data, 'site');
            const key = await must(api.POST('/api/keys', { body: { name: text(data, 'name') || undefined, role: text(data, 'role') as Key['role'], site_ids: site ? [site] : null } }));
            setCreated(key);
            await reload();
          }}
        >
          <label>
            Name<input name="name" maxLength={100} placeholder="Blog backend" />
          </label>
          <label>
            Role
            <select name="role">
              {Object.entries(ROLES).map(([role, label]) => (
                <option key={role} value={role}>{label}</option>
              ))}
            </select>
          </label>
          <label>
            Sites
            <select name="site">
              <option value="">Every site of the account</option>
              {sites.map((site) => (
                <option key={site.id} value={site.id}>{site.name} only</option>
              ))}
            </select>
          </label>
        </Form>
        {created && (
          <div class="secret" role="status">
            <span>
              The secret of <strong>{created.name}</strong>, shown this once: <code>{created.api_key}</code>
            </span>
            <CopyButton text={created.api_key} />
            <button type="button" class="plain" onClick={() => setCreated(null)}>I have kept it</button>
          </div>
        )}
      </div>
      <label class="check">
        <input type="checkbox" checked={showRevoked} onChange={(event) => setShowRevoked(event.currentTarget.checked)} />
        Show revoked keys
      </label>
      <Loaded load={load} retry={reload} what="the keys">
        {(data) =>
          data.keys.length === 0 ? (
            <Empty>No API key yet. Create one for your site's backend to sign readers in (integration) or to moderate from your own tools.</Empty>
          ) : (
            <Table columns={['Key', 'Role', 'Sites', 'Created', 'Last used', 'State']} panel>
              {data.keys.map((key) => (
                <tr key={key.id}>
                  <td>
                    {key.name}
                    <div class="note">{key.prefix ? <code>{key.prefix}…</code> : key.id}</div>
                  </td>
                  <td>{key.role}</td>
                  <td>{key.site_ids ? key.site_ids.map(siteName).join(', ') : 'all'}</td>
                  <td>{when(key.created_at)}</td>
                  <td>{when(key.last_used_at)}</td>
                  <td>
                    {key.revoked_at ? (
                      `revoked ${when(key.revoked_at)}`
                    ) : (
                      <button type="button" class="danger" onClick={() => revoke(key)} aria-label={`Revoke ${key.name}`}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
    </section>
  );
}
