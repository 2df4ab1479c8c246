import { Type } from 'typebox';
import { ROLES } from '../auth/caller.ts';
import { Nullable, Timestamp } from '../http/schemas.ts';

export const Role = Type.Enum([...ROLES]);

export const KeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: Role,
  site_ids: Nullable(Type.Array(Type.String()), { description: 'null: every site of the account' }),
  prefix: Nullable(Type.String({ description: 'The first characters of the secret, to recognise it; null for keys made before Parley kept them' })),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp, { description: 'Recorded at most once a minute; null if never used since Parley records it' }),
  revoked_at: Nullable(Timestamp),
});

const AccountId = Type.Optional(Type.String({ maxLength: 100, description: "The account; default: the caller's only one" }));

export const NewKeyBody = Type.Object({
  role: Role,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  site_ids: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }))),
  account_id: AccountId,
});

export const NewKeyResponse = Type.Object({
  ...KeySchema.properties,
  api_key: Type.String({ description: 'The secret, shown this once; only its hash is stored' }),
});

export const KeyList = Type.Object({ keys: Type.Array(KeySchema) });

export const KeyListQuery = Type.Object({
  include_revoked: Type.Optional(Type.Boolean({ default: false, description: 'Also list revoked keys' })),
});

export const RenameKeyBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) });
