import { WEBHOOK_SECRET_PREFIX } from '../webhooks/secret.ts';
import type { Site } from './repository.ts';

/**
 * Shows enough of a secret to recognise it, never the whole of it: the last four characters, after
 * the fixed `whsec_` prefix when it has one (a chosen secret's own text before an underscore is secret too).
 */
export function maskSecret(secret: string | null): string | null {
  if (secret === null) return null;
  return `${secret.startsWith(WEBHOOK_SECRET_PREFIX) ? WEBHOOK_SECRET_PREFIX : ''}…${secret.slice(-4)}`;
}

/** A site as a session or the widget sees it (PublicSiteSchema). */
export function publicSiteView(site: Site) {
  return {
    id: site.id,
    name: site.name,
    allow_guests: site.allowGuests,
    reactions: site.reactions,
    live_updates: site.liveUpdates,
    formatting: site.formatting,
    edit_window_seconds: site.editWindowSeconds,
    language: site.language,
    contact: site.contact,
  };
}

export function siteView(site: Site) {
  return {
    id: site.id,
    name: site.name,
    domains: site.domains,
    moderation_mode: site.moderationMode,
    allow_guests: site.allowGuests,
    reactions: site.reactions,
    webhook_url: site.webhookUrl,
    webhook_secret: maskSecret(site.webhookSecret),
    webhook_events: site.webhookEvents,
    live_updates: site.liveUpdates,
    sso_moderators: site.ssoModerators,
    email_sign_in: site.emailSignIn,
    provider_avatars: site.providerAvatars,
    formatting: site.formatting,
    edit_window_seconds: site.editWindowSeconds,
    language: site.language,
    strings: site.strings,
    spam: site.spam,
    contact: site.contact,
    created_at: site.createdAt,
  };
}
