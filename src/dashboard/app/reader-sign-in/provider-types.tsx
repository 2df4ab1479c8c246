import type { ComponentChildren } from 'preact';
import type { Answer } from '../../client/api.ts';

/** An identity provider as the server shows it (never its secret). */
export type Provider = Answer<'/api/sites/{id}/identity-providers/{provider_id}'>;

export type ProviderType = Provider['type'];

interface TypeGuide {
  /** What the type select shows. */
  label: string;
  /** The name readers see on the sign-in button unless the admin writes another. */
  name: string;
  /** Where the admin creates the OAuth app or client, in the provider's own words. */
  steps: ComponentChildren;
  /** Label of the issuer field; required only for a generic OpenID Connect provider. */
  issuer: { label: string; hint: string; placeholder: string; required: boolean };
}

const optionalIssuer = (hint: string, placeholder: string) => ({ label: 'Issuer (optional)', hint, placeholder, required: false });

/** Each type of identity provider: its default name, where its console is, what its issuer means. */
export const PROVIDER_TYPES: Record<ProviderType, TypeGuide> = {
  github: {
    label: 'GitHub',
    name: 'GitHub',
    steps: (
      <>
        On GitHub: <strong>Settings → Developer settings → OAuth Apps → New OAuth App</strong>. Homepage URL: your site; Authorization callback URL: the callback URL below. Then
        generate a client secret.
      </>
    ),
    issuer: optionalIssuer('Only for GitHub Enterprise Server: its address. Empty for github.com.', 'https://github.example.com'),
  },
  google: {
    label: 'Google',
    name: 'Google',
    steps: (
      <>
        In the Google Cloud console: <strong>APIs &amp; Services → Credentials → Create credentials → OAuth client ID</strong>, application type <strong>Web application</strong>;
        add the callback URL below under “Authorised redirect URIs”.
      </>
    ),
    issuer: optionalIssuer('Leave it empty: Google’s issuer is known.', 'https://accounts.google.com'),
  },
  gitlab: {
    label: 'GitLab',
    name: 'GitLab',
    steps: (
      <>
        On GitLab: <strong>Preferences → Applications → Add new application</strong> (or a group’s Settings → Applications); Redirect URI: the callback URL below; scopes{' '}
        <code>openid</code>, <code>profile</code>, <code>email</code>.
      </>
    ),
    issuer: optionalIssuer('Only for a self-managed GitLab: its address. Empty for gitlab.com.', 'https://gitlab.example.com'),
  },
  microsoft: {
    label: 'Microsoft',
    name: 'Microsoft',
    steps: (
      <>
        In the Microsoft Entra admin center: <strong>App registrations → New registration</strong>, redirect URI of platform <strong>Web</strong>: the callback URL below; then{' '}
        <strong>Certificates &amp; secrets → New client secret</strong>.
      </>
    ),
    issuer: optionalIssuer('Only for the work or school accounts of one tenant: https://login.microsoftonline.com/<tenant id>/v2.0. Empty for personal Microsoft accounts.', 'https://login.microsoftonline.com/…/v2.0'),
  },
  oidc: {
    label: 'Any OpenID Connect provider',
    name: 'Single sign-on',
    steps: (
      <>
        In your provider (Keycloak, Authentik, Auth0, Okta…): a <strong>confidential client</strong> using the authorization code flow, with the callback URL below as its
        redirect URI.
      </>
    ),
    issuer: { label: 'Issuer', hint: 'The address whose /.well-known/openid-configuration the provider serves.', placeholder: 'https://id.example.com/realms/main', required: true },
  },
};

export const PROVIDER_TYPE_ORDER: ProviderType[] = ['github', 'google', 'gitlab', 'microsoft', 'oidc'];
