import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../../client/api.ts';
import { t } from '../i18n.ts';
import { Dialog, Empty, Loaded, notify, useLoad } from '../ui.tsx';
import { AddProvider, CallbackUrl, EditProvider } from './provider-form.tsx';
import { PROVIDER_TYPES, type Provider } from './provider-types.tsx';

type TestResult = Answer<'/api/sites/{id}/identity-providers/{provider_id}/test', 'post'>;

function ProviderRow(props: { provider: Provider; onChanged: (provider: Provider) => void; onRemoved: (provider: Provider) => void }) {
  const { provider } = props;
  const path = { id: provider.site_id, provider_id: provider.id };
  const [busy, setBusy] = useState<'testing' | 'removing' | null>(null);
  const [result, setResult] = useState<TestResult | null>(null);
  const [editing, setEditing] = useState(false);
  const run = async (doing: 'testing' | 'removing', action: () => Promise<void>) => {
    setBusy(doing);
    try {
      await action();
    } catch (error) {
      notify(errorText(error), 'error');
    } finally {
      setBusy(null);
    }
  };
  const test = () =>
    run('testing', async () => {
      setResult(null);
      setResult(await must(api.POST('/api/sites/{id}/identity-providers/{provider_id}/test', { params: { path } })));
    });
  const remove = () =>
    confirm(t('signIn.provider.removeConfirm', { provider: provider.name })) &&
    run('removing', async () => {
      await must(api.DELETE('/api/sites/{id}/identity-providers/{provider_id}', { params: { path } }));
      props.onRemoved(provider);
    });
  return (
    <li class="provider">
      <div class="provider-head">
        <h3>{provider.name}</h3>
        <span class="badge">{t(PROVIDER_TYPES[provider.type].label)}</span>
      </div>
      <dl class="provider-facts">
        <div>
          <dt>{t('signIn.field.clientId')}</dt>
          <dd><code>{provider.client_id}</code></dd>
        </div>
        <div>
          <dt>{t('signIn.issuer.required')}</dt>
          <dd><code>{provider.issuer}</code></dd>
        </div>
      </dl>
      <div class="actions">
        <button type="button" disabled={busy !== null} onClick={test} aria-label={t('signIn.provider.testLabel', { provider: provider.name })}>
          {t(busy === 'testing' ? 'signIn.provider.testing' : 'signIn.provider.test')}
        </button>
        <button type="button" disabled={busy !== null} onClick={() => setEditing(true)} aria-label={t('signIn.provider.editLabel', { provider: provider.name })}>
          {t('signIn.provider.edit')}
        </button>
        <button type="button" class="danger" disabled={busy !== null} onClick={remove} aria-label={t('signIn.provider.removeLabel', { provider: provider.name })}>
          {t('signIn.provider.remove')}
        </button>
      </div>
      <div role="status">
        {result && <p class={result.ok ? 'test-ok' : 'problem'}>{t(result.ok ? 'signIn.provider.works' : 'signIn.provider.fails', { detail: result.detail })}</p>}
      </div>
      {editing && (
        <Dialog title={t('signIn.provider.editLabel', { provider: provider.name })} onClose={() => setEditing(false)}>
          <EditProvider
            provider={provider}
            onSaved={(saved) => {
              setEditing(false);
              setResult(null);
              props.onChanged(saved);
              notify(t('signIn.provider.saved', { provider: saved.name }));
            }}
          />
        </Dialog>
      )}
    </li>
  );
}

/** The site's identity providers, each with a test, an edit and a removal, and a form to add one. */
export function IdentityProviders(props: { siteId: string }) {
  const [load, reload, updateAnswer] = useLoad(async () => must(api.GET('/api/sites/{id}/identity-providers', { params: { path: { id: props.siteId } } })), [props.siteId]);
  const update = (change: (providers: Provider[]) => Provider[]) => updateAnswer((answer) => ({ ...answer, providers: change(answer.providers) }));
  const [added, setAdded] = useState<Provider | null>(null);
  return (
    <Loaded load={load} retry={reload} loading="signIn.providers.loading" failed="signIn.providers.loadFailed">
      {({ providers, callback_url: callbackUrl }) => (
        <>
          {added && (
            <div class="secret" role="status">
              <span>{t('signIn.provider.added', { provider: added.name })}</span>
              <CallbackUrl url={added.callback_url} />
              <button type="button" class="plain" onClick={() => setAdded(null)}>{t('signIn.done')}</button>
            </div>
          )}
          {providers.length === 0 ? (
            <Empty>{t('signIn.providers.empty')}</Empty>
          ) : (
            <ul class="providers" aria-label={t('signIn.providers.title')}>
              {providers.map((provider) => (
                <ProviderRow
                  key={provider.id}
                  provider={provider}
                  onChanged={(changed) => update((list) => list.map((p) => (p.id === changed.id ? changed : p)))}
                  onRemoved={(removed) => {
                    if (added?.id === removed.id) setAdded(null);
                    notify(t('signIn.provider.removed', { provider: removed.name }));
                    update((list) => list.filter((p) => p.id !== removed.id));
                  }}
                />
              ))}
            </ul>
          )}
          <h3>{t('signIn.providers.add')}</h3>
          <AddProvider
            siteId={props.siteId}
            callbackUrl={callbackUrl}
            onAdded={(provider) => {
              setAdded(provider);
              update((list) => [...list, provider]);
            }}
          />
        </>
      )}
    </Loaded>
  );
}
