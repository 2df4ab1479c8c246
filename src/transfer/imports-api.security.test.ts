import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { finishedImport, getWith, uploadImport } from '../../test/imports.ts';
import { startReceiver, type Receiver } from '../../test/receiver.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';

let parley: TestParley;
let receiver: Receiver;
beforeAll(async () => {
  parley = await startParley();
  receiver = await startReceiver();
});
afterAll(async () => {
  await parley.close();
  await receiver.close();
});

const FILE = '<?xml version="1.0"?>\n<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">\n' +
  '<thread dsq:id="t1"><link>https://blog.example.com/a</link></thread>\n' +
  '<post dsq:id="p1"><message>Imported</message><createdAt>2020-01-01T00:00:00Z</createdAt><author><name>A</name></author><thread dsq:id="t1"/></post>\n</disqus>\n';

const key = async (site: { api_key: string }, role: string, siteIds?: string[]) =>
  (await parley.request('POST', '/api/keys', { token: site.api_key, body: { role, ...(siteIds && { site_ids: siteIds }) } })).body.api_key as string;

describe('who may import and export', () => {
  it("refuses everyone but the site's admins: moderator and integration keys 403, other accounts and keys of other sites 404, no credential 401", async () => {
    const site = await parley.newSite();
    const elsewhere = (await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'Elsewhere' } })).body.id;
    const stranger = await parley.newSite();
    const refused: [string | undefined, number][] = [
      [undefined, 401],
      ['sk_unknownunknownunknownunknownunknown', 401],
      [await key(site, 'moderator'), 403],
      [await key(site, 'integration'), 403],
      [await key(site, 'admin', [elsewhere]), 404],
      [stranger.api_key, 404],
    ];
    for (const [token, status] of refused) {
      const upload = await uploadImport(parley, site.site_id, token, FILE);
      expect(upload.status, `import with ${token}`).toBe(status);
      expect(upload.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      for (const path of ['imports', 'export', 'export?format=disqus&include_personal_data=true']) {
        const response = await fetch(`${parley.url}/api/sites/${site.site_id}/${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
        expect(response.status, `${path} with ${token}`).toBe(status);
        await response.body?.cancel();
      }
    }
    expect((await getWith(parley, `/api/sites/${site.site_id}/imports`, site.api_key)).body.total).toBe(0);
    expect(await parley.app.db.kysely.selectFrom('comments').select('id').where('site_id', '=', site.site_id).execute()).toEqual([]);
  });

  it('lets an owner or admin signed in to the dashboard import (with the CSRF token), and refuses a moderator of the account', async () => {
    const site = await parley.newSite();
    const adminStaff = await addStaff(parley, site.account_id, 'admin', { name: 'Ada Admin' });
    const admin = await signInStaff(parley, adminStaff.email);
    const moderator = await signInStaff(parley, (await addStaff(parley, site.account_id, 'moderator')).email);
    expect((await uploadImport(parley, site.site_id, undefined, FILE, '', moderator.headers)).status).toBe(403);
    expect((await uploadImport(parley, site.site_id, undefined, FILE, '', { cookie: admin.cookie })).status).toBe(403);
    const started = await uploadImport(parley, site.site_id, undefined, FILE, '', admin.headers);
    expect(started.status).toBe(202);
    expect(started.body.started_by).toEqual({ id: adminStaff.id, name: 'Ada Admin' });
    expect((await finishedImport(parley, site.site_id, site.api_key, started.body.id)).status).toBe('completed');
  });

  it("exports only the site's own comments", async () => {
    const site = await parley.newSite();
    const other = (await parley.request('POST', '/api/sites', { token: site.api_key, body: { name: 'Other' } })).body.id;
    await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'mine' } });
    await parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: other, thread_url: pageUrl(), content: 'theirs' } });
    const exported = (await getWith(parley, `/api/sites/${site.site_id}/export`, site.api_key)).body as string;
    expect(exported).toContain('"mine"');
    expect(exported).not.toContain('theirs');
  });
});

describe('an uploaded file is untrusted', () => {
  it('fetches nothing a file names (an external entity) and fails the job at its DTD, writing nothing', async () => {
    const site = await parley.newSite();
    const hostile = `<?xml version="1.0"?>\n<!DOCTYPE disqus [<!ENTITY steal SYSTEM "${receiver.url}/xxe">]>\n<disqus xmlns="http://disqus.com"><post><message>&steal;</message></post></disqus>\n`;
    const started = await uploadImport(parley, site.site_id, site.api_key, hostile);
    expect(started.status).toBe(202);
    const job = await finishedImport(parley, site.site_id, site.api_key, started.body.id);
    expect(job).toMatchObject({ status: 'failed', error: { message: 'line 2: document type declarations (DTDs) are not accepted', line: 2 } });
    expect(receiver.received).toEqual([]);
    expect(await parley.app.db.kysely.selectFrom('comments').select('id').where('site_id', '=', site.site_id).execute()).toEqual([]);
  });
});
