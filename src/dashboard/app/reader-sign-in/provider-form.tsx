import { useState } from 'preact/hooks';
import { api, must } from '../../client/api.ts';
import { t } from '../i18n.ts';
import { Rich } from '../rich.tsx';
import { CopyButton, Form, text } from '../ui.tsx';
import { PROVIDER_TYPE_ORDER, PROVIDER_TYPES, type Provider, type ProviderType } from './provider-types.tsx';

/** The exact address to paste into the provider's console, with a button to copy it. */
export function CallbackUrl(props: { url: string }) {
  return (
    <div class="callback">
      <span>{t('signIn.callback')}</span>
      <code>{props.url}</code>
      <CopyButton text={props.url} label={t('signIn.copyCallback')} />
    </div>
  );
}

/** Name, client id, secret and issuer: shared by adding a provider and editing one. */
function Fields(props: { type: ProviderType; provider?: Provider; name: string; onName: (name: string) => void }) {
  const issuer = PROVIDER_TYPES[props.type].issuer;
  const editing = props.provider !== undefined;
  const hintId = `issuer-hint-${props.provider?.id ?? 'new'}`;
  return (
    <>
      <label>
        {t('signIn.field.name')}
        <input name="name" required maxLength={100} value={props.name} onInput={(event) => props.onName(event.currentTarget.value)} />
      </label>
      <label>
        {t('signIn.field.clientId')}
        <input name="client_id" required maxLength={500} autocomplete="off" spellcheck={false} defaultValue={props.provider?.client_id} />
      </label>
      <label>
        {t(editing ? 'signIn.field.newSecret' : 'signIn.field.secret')}
        <input name="client_secret" type="password" required={!editing} maxLength={1000} autocomplete="new-password" />
      </label>
      <label>
        {t(issuer.label)}
        <input name="issuer" type="url" required={issuer.required} maxLength={500} placeholder={issuer.placeholder} defaultValue={props.provider?.issuer ?? ''} aria-describedby={hintId} />
      </label>
      <span id={hintId} class="note hint">{t(issuer.hint)}</span>
    </>
  );
}

/** Adds an identity provider; the type chooses the default name, the console steps and whether an issuer is needed. */
export function AddProvider(props: { siteId: string; callbackUrl: string; onAdded: (provider: Provider) => void }) {
  const [type, setType] = useState<ProviderType>('github');
  const [name, setName] = useState(() => t(PROVIDER_TYPES.github.name));
  const [formKey, setFormKey] = useState(0);
  const chooseType = (next: ProviderType) => {
    // A name the admin left as the previous type's default follows the type.
    if (name === t(PROVIDER_TYPES[type].name)) setName(t(PROVIDER_TYPES[next].name));
    setType(next);
  };
  return (
    <div key={formKey}>
      <Form
        submit={t('signIn.add')}
        onSubmit={async (data) => {
          const issuer = text(data, 'issuer');
          const provider = await must(
            api.POST('/api/sites/{id}/identity-providers', {
              params: { path: { id: props.siteId } },
              body: { type, name: text(data, 'name'), client_id: text(data, 'client_id'), client_secret: String(data.get('client_secret') ?? ''), ...(issuer && { issuer }) },
            }),
          );
          props.onAdded(provider);
          setType('github');
          setName(t(PROVIDER_TYPES.github.name));
          setFormKey((n) => n + 1);
        }}
      >
        <label>
          {t('signIn.field.type')}
          <select name="type" value={type} onChange={(event) => chooseType(event.currentTarget.value as ProviderType)}>
            {PROVIDER_TYPE_ORDER.map((option) => (
              <option key={option} value={option}>{t(PROVIDER_TYPES[option].label)}</option>
            ))}
          </select>
        </label>
        <p class="steps">
          <Rich text={t(PROVIDER_TYPES[type].steps)} />
        </p>
        <CallbackUrl url={props.callbackUrl} />
        <Fields type={type} name={name} onName={setName} />
      </Form>
    </div>
  );
}

/** Changes a provider's name, client id, secret (only when a new one is typed) or issuer. */
export function EditProvider(props: { provider: Provider; onSaved: (provider: Provider) => void }) {
  const { provider } = props;
  const [name, setName] = useState(provider.name);
  return (
    <Form
      submit={t('signIn.save')}
      onSubmit={async (data) => {
        const secret = String(data.get('client_secret') ?? '');
        const issuer = text(data, 'issuer');
        const saved = await must(
          api.PATCH('/api/sites/{id}/identity-providers/{provider_id}', {
            params: { path: { id: provider.site_id, provider_id: provider.id } },
            body: {
              name: text(data, 'name'),
              client_id: text(data, 'client_id'),
              ...(secret && { client_secret: secret }),
              // The issuer shown is the one in use, the type's own when none was given: sent only when
              // changed, so saving a name does not pin the type's issuer; emptied, it goes back to the type's.
              ...(issuer !== provider.issuer && { issuer: issuer || null }),
            },
          }),
        );
        props.onSaved(saved);
      }}
    >
      <p class="steps">
        <Rich text={t(PROVIDER_TYPES[provider.type].steps)} />
      </p>
      <CallbackUrl url={provider.callback_url} />
      <Fields type={provider.type} provider={provider} name={name} onName={setName} />
    </Form>
  );
}
