import type { Answer } from '../../client/api.ts';
import type { MessageKey } from '../i18n.ts';

/** An identity provider as the server shows it (never its secret). */
export type Provider = Answer<'/api/sites/{id}/identity-providers/{provider_id}'>;

export type ProviderType = Provider['type'];

interface TypeGuide {
  /** What the type select shows. */
  label: MessageKey;
  /** The name readers see on the sign-in button unless the admin writes another. */
  name: MessageKey;
  /** Where the admin creates the OAuth app or client, in the provider's own words (with <strong> and <code>). */
  steps: MessageKey;
  /** Label of the issuer field; required only for a generic OpenID Connect provider. */
  issuer: { label: MessageKey; hint: MessageKey; placeholder: string; required: boolean };
}

const optionalIssuer = (hint: MessageKey, placeholder: string) => ({ label: 'signIn.issuer.optional' as const, hint, placeholder, required: false });

/** Each type of identity provider: its default name, where its console is, what its issuer means. */
export const PROVIDER_TYPES: Record<ProviderType, TypeGuide> = {
  github: {
    label: 'signIn.type.github',
    name: 'signIn.type.github',
    steps: 'signIn.steps.github',
    issuer: optionalIssuer('signIn.issuer.hint.github', 'https://github.example.com'),
  },
  google: {
    label: 'signIn.type.google',
    name: 'signIn.type.google',
    steps: 'signIn.steps.google',
    issuer: optionalIssuer('signIn.issuer.hint.google', 'https://accounts.google.com'),
  },
  gitlab: {
    label: 'signIn.type.gitlab',
    name: 'signIn.type.gitlab',
    steps: 'signIn.steps.gitlab',
    issuer: optionalIssuer('signIn.issuer.hint.gitlab', 'https://gitlab.example.com'),
  },
  microsoft: {
    label: 'signIn.type.microsoft',
    name: 'signIn.type.microsoft',
    steps: 'signIn.steps.microsoft',
    issuer: optionalIssuer('signIn.issuer.hint.microsoft', 'https://login.microsoftonline.com/…/v2.0'),
  },
  oidc: {
    label: 'signIn.type.oidc',
    name: 'signIn.type.oidcName',
    steps: 'signIn.steps.oidc',
    issuer: { label: 'signIn.issuer.required', hint: 'signIn.issuer.hint.oidc', placeholder: 'https://id.example.com/realms/main', required: true },
  },
};

export const PROVIDER_TYPE_ORDER: ProviderType[] = ['github', 'google', 'gitlab', 'microsoft', 'oidc'];
