import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../client/api.ts';
import { list, t, type MessageKey } from './i18n.ts';
import { useSession } from './session.ts';
import { CopyButton, Empty, Form, Loaded, notify, Table, text, useLoad, when } from './ui.tsx';

type Key = Answer<'/api/keys'>['keys'][number];
const ROLES: Record<Key['role'], MessageKey> = { admin: 'keys.role.admin', moderator: 'keys.role.moderator', integration: 'keys.role.integration' };

/** API keys: created here (the secret shown once), listed with their last use, revoked. */
export function KeysView() {
  const { sites } = useSession();
  const [showRevoked, setShowRevoked] = useState(false);
  const [load, reload] = useLoad(() => must(api.GET('/api/keys', { params: { query: { include_revoked: showRevoked } } })), [showRevoked]);
  const [created, setCreated] = useState<Answer<'/api/keys', 'post'> | null>(null);
  const siteName = (id: string) => sites.find((site) => site.id === id)?.name ?? id;

  const revoke = async (key: Key) => {
    if (!confirm(t('keys.revokeConfirm', { key: key.name }))) return;
    try {
      await must(api.DELETE('/api/keys/{id}', { params: { path: { id: key.id } } }));
      notify(t('keys.revoked', { key: key.name }));
      await reload();
    } catch (error) {
      notify(errorText(error), 'error');
    }
  };

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">{t('keys.title')}</h1>
      <div class="panel">
        <h2>{t('keys.create.title')}</h2>
        <Form
          class="inline-form"
          submit={t('keys.create.submit')}
          onSubmit={async (data) => {
            const site = text(data, 'site');
            const key = await must(api.POST('/api/keys', { body: { name: text(data, 'name') || undefined, role: text(data, 'role') as Key['role'], site_ids: site ? [site] : null } }));
            setCreated(key);
            await reload();
          }}
        >
          <label>
            {t('keys.field.name')}
            <input name="name" maxLength={100} placeholder={t('keys.field.namePlaceholder')} />
          </label>
          <label>
            {t('keys.field.role')}
            <select name="role">
              {Object.entries(ROLES).map(([role, label]) => (
                <option key={role} value={role}>{t(label)}</option>
              ))}
            </select>
          </label>
          <label>
            {t('keys.field.sites')}
            <select name="site">
              <option value="">{t('keys.field.everySite')}</option>
              {sites.map((site) => (
                <option key={site.id} value={site.id}>{t('keys.field.siteOnly', { site: site.name })}</option>
              ))}
            </select>
          </label>
        </Form>
        {created && (
          <div class="secret" role="status">
            <span>
              {t('keys.secret', { key: created.name })} <code>{created.api_key}</code>
            </span>
            <CopyButton text={created.api_key} />
            <button type="button" class="plain" onClick={() => setCreated(null)}>{t('keys.secretKept')}</button>
          </div>
        )}
      </div>
      <label class="check">
        <input type="checkbox" checked={showRevoked} onChange={(event) => setShowRevoked(event.currentTarget.checked)} />
        {t('keys.showRevoked')}
      </label>
      <Loaded load={load} retry={reload} loading="keys.loading" failed="keys.loadFailed">
        {(data) =>
          data.keys.length === 0 ? (
            <Empty>{t('keys.empty')}</Empty>
          ) : (
            <Table columns={[t('keys.column.key'), t('keys.column.role'), t('keys.column.sites'), t('keys.column.created'), t('keys.column.lastUsed'), t('keys.column.state')]} panel>
              {data.keys.map((key) => (
                <tr key={key.id}>
                  <td>
                    {key.name}
                    <div class="note">{key.prefix ? <code>{key.prefix}…</code> : key.id}</div>
                  </td>
                  <td>{t('keys.roleName', { role: key.role })}</td>
                  <td>{key.site_ids ? list(key.site_ids.map(siteName)) : t('keys.allSites')}</td>
                  <td>{when(key.created_at)}</td>
                  <td>{when(key.last_used_at)}</td>
                  <td>
                    {key.revoked_at ? (
                      t('keys.revokedAt', { when: when(key.revoked_at) })
                    ) : (
                      <button type="button" class="danger" onClick={() => revoke(key)} aria-label={t('keys.revokeLabel', { key: key.name })}>
                        {t('keys.revoke')}
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
