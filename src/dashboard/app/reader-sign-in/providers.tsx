import { useState } from 'preact/hooks';
import { api, errorText, must } from '../../client/api.ts';
import { Dialog, Empty, notify } from '../ui.tsx';
import { EditProvider } from './provider-form.tsx';
import { PROVIDER_TYPES, type Provider } from './provider-types.tsx';

type TestResult = { ok: boolean; detail: string };

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
          <dd>{provider.issuer ? <code>{provider.issuer}</code> : <span class="note">the provider’s own</span>}</dd>
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

/** The site's identity providers, each with a test, an edit and a removal. */
export function ProviderList(props: { providers: Provider[]; onChanged: (provider: Provider) => void; onRemoved: (provider: Provider) => void }) {
  if (props.providers.length === 0) return <Empty>No identity provider yet: add one below to let readers sign in with GitHub, Google or any OpenID Connect provider.</Empty>;
  return (
    <ul class="providers" aria-label="Identity providers">
      {props.providers.map((provider) => (
        <ProviderRow key={provider.id} provider={provider} onChanged={props.onChanged} onRemoved={props.onRemoved} />
      ))}
    </ul>
  );
}
