import { parseDocument } from 'htmlparser2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, startParley, type TestParley } from '../../test/helper.ts';
import { readMicrodata, type Item } from '../../test/microdata.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

const HOST = 'blog.example.com';

async function guestSite(spam: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const site = await parley.newSite({ domains: [HOST], allowGuests: true });
  const patched = await parley.request('PATCH', `/api/sites/${site.site_id}`, { token: site.api_key, body: { spam, ...extra } });
  expect(patched.status).toBe(200);
  const thread = pageUrl(HOST);
  const htmlPath = (query = '') => `/v1/comments/html?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}${query}`;
  const post = async (token: string, content: string, parent_id?: string) => {
    const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: site.site_id, thread_url: thread, content, parent_id } });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };
  const alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice' });
  const moderator = await parley.signIn(site.api_key, site.site_id, { id: 'mo', name: 'Mo', moderator: true });
  return { site, thread, htmlPath, post, alice, moderator };
}

/** Posts a form as a browser does (urlencoded), not following the redirect. */
function postForm(fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${parley.url}/v1/comments/form`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

function tokenIn(html: string): string {
  return /name="form_token" value="([^"]+)"/.exec(html)![1];
}

function comments(thread: Item): Item[] {
  return thread.properties.comment as Item[];
}

describe('a thread as HTML', () => {
  it('is the public page of the thread, in valid HTML, with schema.org microdata a parser reads back', async () => {
    const { htmlPath, post, alice, moderator, thread } = await guestSite();
    const first = await post(alice, 'First <b>bold</b> words');
    const reply = await post(alice, 'A reply', first);
    const removed = await post(alice, 'Hidden by a moderator');
    await parley.request('POST', `/v1/comments/${first}/vote`, { token: moderator, body: { vote_type: 'up' } });
    expect((await parley.request('PATCH', `/v1/comments/${removed}/moderate`, { token: moderator, body: { action: 'remove' } })).status).toBe(200);

    const response = await fetch(parley.url + htmlPath());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    // Well formed: every element htmlparser2 opens is closed where the markup closes it.
    const document = parseDocument(html, { withStartIndices: true, withEndIndices: true });
    expect(document.children).toHaveLength(1);
    expect(html).toMatch(/^<parley-comments [^>]*><template shadowrootmode="open">/);
    expect(html).not.toContain('Hidden by a moderator');
    expect(html).not.toContain(removed);

    const [posting] = readMicrodata(html);
    expect(posting.type).toBe('https://schema.org/DiscussionForumPosting');
    expect(posting.properties.url).toEqual([thread]);
    expect(posting.properties.commentCount).toEqual(['1']);
    const [top] = comments(posting);
    expect(top.type).toBe('https://schema.org/Comment');
    expect(top.properties.author).toEqual([{ type: 'https://schema.org/Person', properties: { name: ['Alice'] } }]);
    expect(top.properties.text).toEqual(['First <b>bold</b> words']);
    expect(top.properties.upvoteCount).toEqual(['1']);
    expect(Date.parse(top.properties.dateCreated[0] as string)).toBeGreaterThan(0);
    const [nested] = comments(top);
    expect(nested.properties.text).toEqual(['A reply']);
    // Each comment's anchor, in the light DOM where a page's #fragment finds it.
    expect(html).toContain(`<span id="parley-${reply}" slot="parley-${reply}"></span>`);
  });

  it('is cached until a write to the thread, with an ETag answered 304', async () => {
    const { htmlPath, post, alice } = await guestSite();
    await post(alice, 'one');
    const first = await fetch(parley.url + htmlPath());
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    expect((await fetch(parley.url + htmlPath(), { headers: { 'if-none-match': etag } })).status).toBe(304);
    await post(alice, 'two');
    const after = await fetch(parley.url + htmlPath(), { headers: { 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(await after.text()).toContain('two');
  });

  it('speaks the language asked for, else the site’s, else the browser’s', async () => {
    const { htmlPath, post, alice } = await guestSite();
    await post(alice, 'hello');
    const words = async (query: string, headers: Record<string, string> = {}) => (await fetch(parley.url + htmlPath(query), { headers })).text();
    expect(await words('&lang=de')).toContain('>Antworten<');
    expect(await words('', { 'accept-language': 'fr-CA,fr;q=0.9' })).toContain('>Répondre<');
    expect(await words('')).toContain('>Reply<');
  });
});

describe('the thread’s form, posted without JavaScript', () => {
  it('publishes a guest comment and goes back to it on the page; a reply too', async () => {
    const { site, thread, htmlPath } = await guestSite({ min_submit_seconds: 0 });
    const token = tokenIn(await (await fetch(parley.url + htmlPath())).text());
    const posted = await postForm({ site_id: site.site_id, thread_url: thread, author_name: 'Reader', content: 'Hello without scripts', form_token: token, website: '' });
    expect(posted.status).toBe(303);
    const location = new URL(posted.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(thread);
    const id = /^#parley-(cmt_\w+)$/.exec(location.hash)![1];
    const page = await (await fetch(parley.url + htmlPath())).text();
    expect(page).toContain('Hello without scripts');
    // The Reply link leads to the form for the comment; its form posts the parent.
    expect(page).toContain(`parley_reply=${id}#parley-form`);
    const replyForm = await (await fetch(parley.url + htmlPath(`&reply=${id}`))).text();
    expect(replyForm).toContain(`name="parent_id" value="${id}"`);
    expect(replyForm).toContain('Reply to Reader');
    const replied = await postForm({ site_id: site.site_id, thread_url: thread, parent_id: id, author_name: '', content: 'A reply', form_token: tokenIn(replyForm) });
    expect(replied.status).toBe(303);
    const list = await parley.request('GET', `/v1/comments?site_id=${site.site_id}&thread_url=${encodeURIComponent(thread)}`);
    expect(list.body.comments[0].replies[0]).toMatchObject({ content: 'A reply', parent_id: id });
  });

  it('holds a comment the spam checks doubt (too fast, honeypot) and says so on the page', async () => {
    const { site, thread, htmlPath } = await guestSite();
    const token = tokenIn(await (await fetch(parley.url + htmlPath())).text());
    const fast = await postForm({ site_id: site.site_id, thread_url: thread, content: 'Written in no time', form_token: token });
    expect(fast.status).toBe(303);
    const held = new URL(fast.headers.get('location')!);
    expect(held.searchParams.get('parley_notice')).toBe('held');
    expect(held.hash).toBe('#parley-form');
    const bot = await postForm({ site_id: site.site_id, thread_url: thread, content: 'Buy now', website: 'https://spam.example', ...(await parley.guestForm(site.site_id)) });
    expect(new URL(bot.headers.get('location')!).searchParams.get('parley_notice')).toBe('held');
    const page = await (await fetch(parley.url + htmlPath('&notice=held'))).text();
    expect(page).toContain('Your comment will appear once a moderator has approved it.');
    expect(page).not.toContain('Written in no time');
  });

  it('goes back with the reason when the comment is refused, and a site needing proof of work says so', async () => {
    const { site, thread, htmlPath } = await guestSite({ proof_of_work: 'always' });
    const refused = await postForm({ site_id: site.site_id, thread_url: thread, content: 'no proof', ...(await parley.guestForm(site.site_id)) });
    expect(refused.status).toBe(303);
    const back = new URL(refused.headers.get('location')!);
    expect(back.searchParams.get('parley_notice')).toBe('validation_failed');
    expect(back.searchParams.get('parley_detail')).toMatch(/altcha/);
    const page = await (await fetch(parley.url + htmlPath())).text();
    expect(page).not.toContain('name="content"');
    expect(page).toContain('turn on JavaScript');
    const empty = await postForm({ site_id: site.site_id, thread_url: thread, content: '   ' });
    expect(new URL(empty.headers.get('location')!).searchParams.get('parley_notice')).toBe('validation_failed');
    const withForm = await guestSite();
    const shown = await (await fetch(parley.url + withForm.htmlPath(`&notice=validation_failed&detail=${encodeURIComponent('content must not be empty')}`))).text();
    expect(shown).toContain('Please check your text: content must not be empty');
  });

  it('never redirects off the site: a thread_url on another host is refused', async () => {
    const { site } = await guestSite();
    const foreign = await postForm({ site_id: site.site_id, thread_url: 'https://evil.example/phish', content: 'x' });
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('location')).toBeNull();
    const noDomains = await parley.newSite({ allowGuests: true });
    const anywhere = await postForm({ site_id: noDomains.site_id, thread_url: 'https://evil.example/phish', content: 'x' });
    expect(anywhere.status).toBe(409);
    expect(anywhere.headers.get('location')).toBeNull();
  });

  it('turns the guest limit into a redirect with the wait', async () => {
    const limited = await startParley({ PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '1' });
    try {
      const site = await limited.newSite({ domains: [HOST], allowGuests: true });
      const thread = pageUrl(HOST);
      const send = async () =>
        fetch(`${limited.url}/v1/comments/form`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ site_id: site.site_id, thread_url: thread, content: `hi ${Math.random()}`, ...(await limited.guestForm(site.site_id)) }).toString(),
          redirect: 'manual',
        });
      expect((await send()).status).toBe(303);
      const refused = await send();
      expect(refused.status).toBe(303);
      const back = new URL(refused.headers.get('location')!);
      expect(back.searchParams.get('parley_notice')).toBe('rate_limited');
      expect(Number(back.searchParams.get('parley_retry'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});
