import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../../client/api.ts';
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
    confirm(`Remove ${provider.name}? Readers who sign in only through ${provider.name} lose that way in; their comments stay.`) &&
    run('removing', async () => {
      await must(api.DELETE('/api/sites/{id}/identity-providers/{provider_id}', { params: { path } }));
      props.onRemoved(provider);
    });
  return (
    <li class="provider">
      <div class="provider-head">
        <h3>{provider.name}</h3>
        <span class="badge">{PROVIDER_TYPES[provider.type].label}</span>
      </div>
      <dl class="provider-facts">
        <div>
          <dt>Client ID</dt>
          <dd><code>{provider.client_id}</code></dd>
        </div>
        <div>
          <dt>Issuer</dt>
          <dd><code>{provider.issuer}</code></dd>
        </div>
      </dl>
      <div class="actions">
        <button type="button" disabled={busy !== null} onClick={test} aria-label={`Test ${provider.name}`}>{busy === 'testing' ? 'Testing…' : 'Test'}</button>
        <button type="button" disabled={busy !== null} onClick={() => setEditing(true)} aria-label={`Edit ${provider.name}`}>Edit</button>
        <button type="button" class="danger" disabled={busy !== null} onClick={remove} aria-label={`Remove ${provider.name}`}>Remove</button>
      </div>
      <div role="status">
        {result && <p class={result.ok ? 'test-ok' : 'problem'}>{result.ok ? `Works: ${result.detail}` : `Does not work: ${result.detail}`}</p>}
      </div>
      {editing && (
        <Dialog title={`Edit ${provider.name}`} onClose={() => setEditing(false)}>
          <EditProvider
            provider={provider}
            onSaved={(saved) => {
              setEditing(false);
              setResult(null);
              props.onChanged(saved);
              notify(`${saved.name} is saved`);
            }}
          />
        </Dialog>
      )}
    </li>
  );
}

/**
 * The address providers send readers back to. It is one for every provider of the server, so a
 * provider already added gives the server's own (PARLEY_PUBLIC_URL); before the first one, the
 * dashboard's origin is the best guess, and the added provider then shows the server's.
 */
const callbackUrlOf = (providers: Provider[]) => providers[0]?.callback_url ?? `${location.origin}/v1/auth/callback`;

/** The site's identity providers, each with a test, an edit and a removal, and a form to add one. */
export function IdentityProviders(props: { siteId: string }) {
  const [load, reload, update] = useLoad(async () => (await must(api.GET('/api/sites/{id}/identity-providers', { params: { path: { id: props.siteId } } }))).providers, [props.siteId]);
  const [added, setAdded] = useState<Provider | null>(null);
  return (
    <Loaded load={load} retry={reload} what="the identity providers">
      {(providers) => (
        <>
          {added && (
            <div class="secret" role="status">
              <span>{added.name} is added. If you have not yet, paste its callback URL into the provider’s console, then press Test.</span>
              <CallbackUrl url={added.callback_url} />
              <button type="button" class="plain" onClick={() => setAdded(null)}>Done</button>
            </div>
          )}
          {providers.length === 0 ? (
            <Empty>No identity provider yet: add one below to let readers sign in with GitHub, Google or any OpenID Connect provider.</Empty>
          ) : (
            <ul class="providers" aria-label="Identity providers">
              {providers.map((provider) => (
                <ProviderRow
                  key={provider.id}
                  provider={provider}
                  onChanged={(changed) => update((list) => list.map((p) => (p.id === changed.id ? changed : p)))}
                  onRemoved={(removed) => {
                    if (added?.id === removed.id) setAdded(null);
                    notify(`${removed.name} is removed`);
                    update((list) => list.filter((p) => p.id !== removed.id));
                  }}
                />
              ))}
            </ul>
          )}
          <h3>Add a provider</h3>
          <AddProvider
            siteId={props.siteId}
            callbackUrl={callbackUrlOf(providers)}
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
