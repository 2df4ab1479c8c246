import { Type } from 'typebox';
import { EVENT_TYPES } from '../events/record.ts';
import { Timestamp } from '../http/schemas.ts';
import { MODERATION_MODES } from './repository.ts';
import { SpamSettingsPatch, SpamSettingsSchema } from '../spam/settings.ts';
import { FORMATTINGS } from '../formatting/html.ts';
import { LanguageSetting, StringsSetting } from './strings.ts';
import { ContactSetting } from '../contests/contact.ts';

const Formatting = Type.Enum([...FORMATTINGS], {
  description: "How comments are written: `markdown` (CommonMark with strikethrough and bare links; no raw HTML, images or headings) or `plain` (text with links). Default `markdown` for new sites",
});
const EditWindow = Type.Union([Type.Integer({ minimum: 0, maximum: 31_536_000 }), Type.Null()], {
  description: "How long after writing it an author may edit a comment, in seconds: 0, never; null, always. Default 900. Moderators are never limited",
});

export const SiteSchema = Type.Object({
  id: Type.String({ description: 'site_<uuid>' }),
  name: Type.String(),
  domains: Type.Array(Type.String(), {
    description:
      "Hosts accepted in thread_url; empty accepts any. The widget's requests are answered to pages of these hosts over https or http on the default port; " +
      'a host written with a port (localhost:8080) is answered on that port instead',
  }),
  moderation_mode: Type.Enum([...MODERATION_MODES]),
  allow_guests: Type.Boolean(),
  reactions: Type.Array(Type.String()),
  webhook_url: Type.Union([Type.String(), Type.Null()]),
  webhook_secret: Type.Union([Type.String(), Type.Null()], { description: 'Masked; never returned in full' }),
  webhook_events: Type.Array(Type.String()),
  live_updates: Type.Boolean({ description: 'Whether the widget shows new comments and counts while the page is open (default true)' }),
  sso_moderators: Type.Boolean({ description: "Whether an SSO token's moderator claim is honoured (default false)" }),
  email_sign_in: Type.Boolean({ description: 'Whether readers may sign in with a code mailed to them (default true; needs mail)' }),
  provider_avatars: Type.Boolean({ description: "Whether a reader's picture at their identity provider is shown; else the widget draws one from their id (default false)" }),
  formatting: Formatting,
  edit_window_seconds: EditWindow,
  language: LanguageSetting,
  strings: Type.Record(Type.String(), Type.Record(Type.String(), Type.String()), { description: "The site's own words, per language (see PATCH)" }),
  spam: SpamSettingsSchema,
  contact: ContactSetting,
  created_at: Timestamp,
});

/** What a session (a token printed into pages) sees of its site: what the widget draws with, nothing of its configuration. */
export const PublicSiteSchema = Type.Object({
  id: Type.String({ description: 'site_<uuid>' }),
  name: Type.String(),
  allow_guests: Type.Boolean({ description: 'Whether readers without a session may post' }),
  reactions: Type.Array(Type.String(), { description: 'The reaction types the site accepts' }),
  live_updates: Type.Boolean({ description: 'Whether the widget streams changes (GET /v1/comments/stream)' }),
  formatting: Formatting,
  edit_window_seconds: EditWindow,
  language: LanguageSetting,
  contact: ContactSetting,
});

const Reaction = Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z0-9_-]+$' });

const GeneralSettings = {
  name: Type.Optional(Type.String()),
  domains: Type.Optional(Type.Array(Type.String({ maxLength: 253 }), { maxItems: 100 })),
  moderation_mode: Type.Optional(Type.Enum([...MODERATION_MODES])),
  allow_guests: Type.Optional(Type.Boolean()),
  reactions: Type.Optional(Type.Array(Reaction, { minItems: 1, maxItems: 20 })),
  live_updates: Type.Optional(Type.Boolean()),
  sso_moderators: Type.Optional(Type.Boolean()),
  email_sign_in: Type.Optional(Type.Boolean()),
  provider_avatars: Type.Optional(Type.Boolean()),
  formatting: Type.Optional(Formatting),
  edit_window_seconds: Type.Optional(EditWindow),
  language: Type.Optional(LanguageSetting),
  strings: Type.Optional(StringsSetting),
  spam: Type.Optional({ ...SpamSettingsPatch, description: 'Spam checks: the thresholds given change, the others stay' }),
  contact: Type.Optional(ContactSetting),
};

export const SiteSettingsBody = Type.Object({
  ...GeneralSettings,
  webhook_url: Type.Optional(
    Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], {
      description: 'http(s) receiver; null turns webhooks off. Refused (400) when its host is or resolves to a non-public address',
    }),
  ),
  webhook_secret: Type.Optional(
    Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
      description:
        'Signing secret: 16 to 200 printable ASCII characters (0x21-0x7E), in any form. X-Service-Signature is keyed with it as given; ' +
        'webhook-signature with the base64-decoded part when it is whsec_<base64>, else with it as given (the raw format of the Standard Webhooks libraries). ' +
        'Left out or null with a URL set: a whsec_ secret is generated and shown once',
    }),
  ),
  webhook_events: Type.Optional(Type.Array(Type.Enum([...EVENT_TYPES]), { maxItems: EVENT_TYPES.length * 2, description: 'Events to deliver' })),
});

/** Webhook settings need the publisher plan and are set with PATCH once the site exists. */
export const NewSiteBody = Type.Object({
  ...GeneralSettings,
  name: Type.String(),
  account_id: Type.Optional(Type.String({ maxLength: 100, description: "The account; default: the caller's only one" })),
});

export const UpdatedSiteSchema = Type.Object({
  ...SiteSchema.properties,
  generated_webhook_secret: Type.Optional(
    Type.String({ description: 'The webhook secret this change generated, in full: shown in this response only' }),
  ),
});

export const DeleteSiteBody = Type.Object({
  confirm: Type.String({ maxLength: 200, description: "The site's name or id, to confirm" }),
});

export const DeletedSite = Type.Object({
  id: Type.String(),
  deleted: Type.Literal(true),
  comments: Type.Integer({ description: 'Comments deleted with the site' }),
});
