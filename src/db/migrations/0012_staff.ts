import type { Kysely } from 'kysely';

// Staff: the people who run sites, apart from commenters (site_users). A person belongs to accounts
// through memberships; signs in to server-side sessions (only a hash of the cookie's token is
// kept); joins through links (invites, password resets, the first run's setup link), of which
// likewise only a hash is kept. The audit log names who made each change to an account.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('staff')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('staff_memberships')
    .addColumn('staff_id', 'text', (c) => c.notNull().references('staff.id'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('site_ids', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('staff_memberships_pk', ['staff_id', 'account_id'])
    .execute();
  await db.schema.createIndex('staff_memberships_account').on('staff_memberships').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('staff_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('staff_id', 'text', (c) => c.notNull().references('staff.id'))
    .addColumn('csrf_secret', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('staff_sessions_staff').on('staff_sessions').columns(['staff_id', 'created_at']).execute();

  await db.schema
    .createTable('staff_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('staff_id', 'text', (c) => c.references('staff.id'))
    .addColumn('email', 'text')
    .addColumn('role', 'text')
    .addColumn('site_ids', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('used_by', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('staff_links_account').on('staff_links').columns(['account_id', 'kind', 'created_at']).execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('actor_ref', 'text', (c) => c.notNull())
    .addColumn('actor_name', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_ref', 'text')
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_account').on('audit_log').columns(['account_id', 'created_at', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
