import { Type } from 'typebox';
import { ROLES } from '../auth/caller.ts';
import { Timestamp } from '../http/schemas.ts';
import { MODERATION_MODES } from './repository.ts';

export const SiteSchema = Type.Object({
  id: Type.String({ description: 'site_<uuid>' }),
  name: Type.String(),
  domains: Type.Array(Type.String(), { description: 'Hosts accepted in thread_url; empty accepts any' }),
  moderation_mode: Type.Enum([...MODERATION_MODES]),
  allow_guests: Type.Boolean(),
  reactions: Type.Array(Type.String()),
  webhook_url: Type.Union([Type.String(), Type.Null()]),
  webhook_secret: Type.Union([Type.String(), Type.Null()], { description: 'Masked; never returned in full' }),
  webhook_events: Type.Array(Type.String()),
  created_at: Timestamp,
});

const Reaction = Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z0-9_-]+$' });

export const SiteSettingsBody = Type.Object({
  name: Type.Optional(Type.String()),
  domains: Type.Optional(Type.Array(Type.String({ maxLength: 253 }), { maxItems: 100 })),
  moderation_mode: Type.Optional(Type.Enum([...MODERATION_MODES])),
  allow_guests: Type.Optional(Type.Boolean()),
  reactions: Type.Optional(Type.Array(Reaction, { minItems: 1, maxItems: 20 })),
});

export const NewSiteBody = Type.Object({ ...SiteSettingsBody.properties, name: Type.String() });

export const Role = Type.Enum([...ROLES]);

export const KeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: Role,
  site_ids: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null: every site of the account' }),
  created_at: Timestamp,
  revoked_at: Type.Union([Timestamp, Type.Null()]),
});

export const NewKeyBody = Type.Object({
  role: Role,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  site_ids: Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }), Type.Null()])),
});

export const NewKeyResponse = Type.Object({
  ...KeySchema.properties,
  api_key: Type.String({ description: 'The secret, shown this once; only its hash is stored' }),
});
