import type { TestParley } from '../../../test/helper.ts';
import { newId } from '../../ids.ts';
import { findSite } from '../../sites/repository.ts';
import { EMAIL_PROVIDER, signInReader, type ProvenIdentity } from '../sign-in.ts';

/** A reader signed in through the real sign-in path (as an email code or a provider's callback ends): the body of POST /v1/sessions. */
export async function signedInReader(parley: TestParley, siteId: string, identity: Partial<ProvenIdentity> & { email: string }) {
  const site = (await findSite(parley.app.db.kysely, siteId))!;
  return signInReader(parley.app.db, site, { provider: EMAIL_PROVIDER, subject: identity.email, emailVerified: true, name: 'Ann Reader', pictureUrl: null, ...identity });
}

/** An identity provider of the site, as an admin adds one (its own API is the providers' feature). */
export async function identityProvider(parley: TestParley, siteId: string, type: string, name: string): Promise<string> {
  const now = new Date().toISOString();
  const id = newId('idp');
  await parley.app.db.kysely
    .insertInto('identity_providers')
    .values({ id, site_id: siteId, type, name, client_id: 'client', client_secret: 'secret', issuer: null, created_at: now, updated_at: now })
    .execute();
  return id;
}
