import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../../test/browser.ts';
import { startChatReceiver } from '../../test/chat-receivers.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { dashboardBed, shootEverywhere, signedInDashboard } from '../../test/dashboard.ts';
import { pageUrl } from '../../test/helper.ts';
import { addStaff, signInStaff } from '../../test/staff.ts';

const CHROMIUM = chromiumForTests();
const bed = dashboardBed({ webhooks: true });

async function ownerOfNewAccount() {
  const site = await bed.parley.newSite({ siteName: 'Tide blog' });
  const owner = await addStaff(bed.parley, site.account_id, 'owner', { name: 'Olive Owner' });
  return { site, owner };
}

describe.skipIf(!CHROMIUM)('running sites from the dashboard', () => {
  it("changes a site's spam defence, which is kept", async () => {
    const { site, owner } = await ownerOfNewAccount();
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, owner.email, `/dashboard/sites/${site.site_id}`);
    const links = page.getByLabel(/^Hold comments with more links than/);
    expect(await links.inputValue()).toBe('3');
    await links.fill('7');
    await page.getByLabel(/^Hold the same text from the same author/).uncheck();
    expect(await page.getByLabel(/^Let guests vote and react/).isChecked()).toBe(false);
    await page.getByLabel(/^Let guests vote and react/).check();
    await page.getByLabel(/^Hold comments holding these words/).fill('casino\nloan');
    await page.getByRole('button', { name: 'Save the spam defence' }).click();
    await page.getByText('The spam defence is saved').waitFor();
    const spam = (await bed.parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body.spam;
    expect(spam).toMatchObject({ enabled: true, max_links: 7, duplicates: false, guest_votes: true, suspect_words: ['casino', 'loan'], min_submit_seconds: 2 });
    await page.reload();
    expect(await page.getByLabel(/^Hold comments with more links than/).inputValue()).toBe('7');
    expect(await page.getByLabel(/^Hold the same text from the same author/).isChecked()).toBe(false);
    expect(await page.getByLabel(/^Let guests vote and react/).isChecked()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    // A value past its limit is refused by the bed.browser before anything is sent.
    await page.getByLabel(/^Hold comments with more links than/).fill('5000');
    await page.getByRole('button', { name: 'Save the spam defence' }).click();
    expect(await page.getByLabel(/^Hold comments with more links than/).evaluate((input) => (input as HTMLInputElement).validity.rangeOverflow)).toBe(true);
    expect((await bed.parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key })).body.spam.max_links).toBe(7);
    await context.close();
  });

  it('creates a site, edits its settings, copies the embed snippet and previews the widget', async () => {
    const { site, owner } = await ownerOfNewAccount();
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, owner.email, '/dashboard/sites');
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByLabel('Name', { exact: true }).fill('Harbour news');
    await page.getByLabel(/^Domains/).fill('127.0.0.1, news.example.com');
    await page.getByRole('button', { name: 'Create the site' }).click();
    await page.getByRole('heading', { name: 'Harbour news' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    expect(id).toMatch(/^site_/);

    await page.getByLabel(/^New comments/).selectOption('all');
    await page.getByLabel('Guests may comment without signing in').uncheck();
    await page.getByLabel(/^Reactions/).fill('like, love');
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await page.getByText('The settings are saved').waitFor();
    const saved = (await bed.parley.request('GET', `/api/sites/${id}`, { token: site.api_key })).body;
    expect(saved).toMatchObject({ name: 'Harbour news', domains: ['127.0.0.1', 'news.example.com'], moderation_mode: 'all', allow_guests: false, reactions: ['like', 'love'] });

    await page.getByRole('button', { name: 'Copy the snippet' }).click();
    const snippet = await page.evaluate(() => navigator.clipboard.readText());
    expect(snippet).toBe(`<script src="${bed.parley.url}/embed.js" async></script>\n<parley-comments site-id="${id}"></parley-comments>`);
    const preview = page.frameLocator('iframe.preview');
    await preview.locator('parley-comments').getByText(/sign in|No comments yet|Be the first/i).first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('creates an API key whose secret is shown once and works, then revokes it: the key then gets 401', async () => {
    const { owner } = await ownerOfNewAccount();
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, owner.email, '/dashboard/keys');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Name').fill('Blog backend');
    await page.getByLabel(/^Role/).selectOption('moderator');
    await page.getByRole('button', { name: 'Create the key' }).click();
    const secret = (await page.locator('.secret code').textContent())!;
    expect(secret).toMatch(/^sk_/);
    expect((await bed.parley.request('GET', '/api/comments', { token: secret })).status).toBe(200);
    await page.getByRole('row', { name: /Blog backend/ }).getByText('moderator').waitFor();
    await page.getByRole('button', { name: 'I have kept it' }).click();
    expect(await page.locator('.secret').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    page.once('dialog', (confirm) => void confirm.accept());
    await page.getByRole('button', { name: 'Revoke Blog backend' }).click();
    await page.getByText('Blog backend is revoked').waitFor();
    expect((await bed.parley.request('GET', '/api/comments', { token: secret })).status).toBe(401);
    await page.getByLabel('Show revoked keys').check();
    await page.getByRole('row', { name: /Blog backend/ }).getByText(/^revoked/).waitFor();
    await context.close();
  });

  it('sets a webhook, sends a test, and redelivers it: each attempt shows in the delivery log', async () => {
    const { site, owner } = await ownerOfNewAccount();
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, owner.email, `/dashboard/webhooks?site=${site.site_id}`);
    await page.getByText('No delivery yet').waitFor();
    await page.getByLabel('Receiver URL (empty turns webhooks off)').fill(bed.receiver.url);
    await page.getByLabel('comment.created').check();
    await page.getByLabel('import.completed').check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const secret = (await page.locator('.secret code').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const saved = await bed.parley.request('GET', `/api/sites/${site.site_id}`, { token: site.api_key });
    expect(saved.body.webhook_events).toEqual(['comment.created', 'import.completed']);
    const before = bed.receiver.received.length;
    await page.getByRole('button', { name: 'Send a test' }).click();
    await page.getByText(/^Test sent: HTTP 200/).waitFor();
    const row = page.getByRole('row', { name: /test/ });
    await row.getByText('succeeded').waitFor();
    expect(bed.receiver.received.length).toBe(before + 1);
    expect(bed.receiver.received.at(-1)!.body).toMatchObject({ test: true });

    await row.getByRole('button', { name: /^Redeliver/ }).click();
    await bed.receiver.waitFor(before + 2);
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return row.locator('summary').textContent();
      })
      .toMatch(/^2 attempts, last: 200/);
    await row.locator('summary').click();
    expect(await row.locator('.attempts li').count()).toBe(2);
    expect(JSON.parse((await row.locator('.delivery-body').textContent())!)).toEqual(JSON.parse(bed.receiver.received.at(-1)!.raw));
    expect(await seriousViolations(page)).toEqual([]);

    // Rotating the secret shows the new one once.
    await page.getByRole('button', { name: 'I have kept it' }).click();
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await page.getByRole('dialog', { name: 'Rotate the webhook secret?' }).getByRole('button', { name: 'Rotate the secret' }).click();
    const rotated = (await page.locator('.secret code').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await context.close();
  });

  it('adds a Slack alert, sends a test that shows in its messages, and removes it', async () => {
    const { site, owner } = await ownerOfNewAccount();
    const slack = await startChatReceiver('slack');
    try {
      const { context, page } = await signedInDashboard(bed.browser, bed.parley, owner.email, `/dashboard/sites/${site.site_id}`);
      const panel = page.locator('.panel', { has: page.getByRole('heading', { name: 'Chat alerts' }) });
      await panel.getByText('No chat alerts yet.').waitFor();
      await panel.getByLabel('Service').selectOption('slack');
      await panel.getByLabel('Incoming webhook URL').fill(slack.targetUrl);
      await panel.getByLabel('a comment is flagged').check();
      await panel.getByRole('button', { name: 'Add an alert' }).click();
      await page.getByText('Alert added').waitFor();
      expect(await panel.getByLabel('Incoming webhook URL').inputValue()).toBe('');
      const host = new URL(slack.targetUrl).host;
      const item = panel.locator('.alert-item', { has: page.getByRole('heading', { name: `Slack ${host}` }) });
      await item.getByText('Nothing sent yet.').waitFor();
      const saved = (await bed.parley.request('GET', `/api/sites/${site.site_id}/alerts`, { token: site.api_key })).body.alerts;
      expect(saved).toMatchObject([{ kind: 'slack', target: { url: slack.targetUrl }, events: ['comment.held', 'comment.flagged'], flag_threshold: 1 }]);

      await item.getByRole('button', { name: `Send a test message to Slack ${host}` }).click();
      await page.getByText(/^The chat answered 200 in/).waitFor();
      await item.getByText('succeeded').waitFor();
      expect(slack.received).toHaveLength(1);
      expect(slack.problems[0]).toEqual([]);
      expect(slack.received[0].body.text).toContain('Tide blog');
      await shootEverywhere(page, 'd-alerts', async (label) => expect(await seriousViolations(page), label).toEqual([]));

      await item.getByRole('button', { name: `Remove the alert to Slack ${host}` }).click();
      await page.getByRole('dialog', { name: 'Remove this alert?' }).getByRole('button', { name: 'Remove' }).click();
      await page.getByText('Alert removed').waitFor();
      await panel.getByText('No chat alerts yet.').waitFor();
      expect((await bed.parley.request('GET', `/api/sites/${site.site_id}/alerts`, { token: site.api_key })).body.alerts).toEqual([]);
      await context.close();
    } finally {
      await slack.close();
    }
  }, 120_000);

  it('says webhooks are off, in words, when the plan does not include them', async () => {
    const site = await bed.parley.newSite({ plan: 'free' });
    const owner = await addStaff(bed.parley, site.account_id, 'owner');
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, owner.email, '/dashboard/webhooks');
    await page.getByLabel('Receiver URL (empty turns webhooks off)').fill(bed.receiver.url);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/Webhooks are turned off for this site: Webhooks need the publisher plan/);
    expect(await page.getByRole('button', { name: 'Send a test' }).isDisabled()).toBe(true);
    await context.close();
  });

  it('invites a moderator with a link, changes a role, and shows the moderation log with who did what', async () => {
    const { site, owner } = await ownerOfNewAccount();
    const admin = await addStaff(bed.parley, site.account_id, 'admin', { name: 'Adam Admin' });
    const signedIn = await signInStaff(bed.parley, admin.email);
    const comment = await bed.parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: pageUrl(), content: 'Off topic remark' } });
    await bed.parley.request('POST', '/api/comments/moderate', { headers: signedIn.headers, body: { ids: [comment.body.id], action: 'remove', reason: 'off topic' } });

    const { context, page } = await signedInDashboard(bed.browser, bed.parley, owner.email, '/dashboard/team');
    await page.getByRole('heading', { name: 'Team' }).waitFor();
    await page.locator('.panel', { hasText: 'Invite someone' }).getByLabel(/^Role/).selectOption('moderator');
    await page.getByRole('button', { name: 'Make an invite link' }).click();
    const link = (await page.locator('.secret code').textContent())!;
    expect(link).toMatch(new RegExp(`^${bed.parley.url}/dashboard/accept-invite#token=invite_`));
    await page.getByText(/Moderator invite made .*pending/).waitFor();

    await page.getByLabel('Role of Adam Admin').selectOption('moderator');
    await page.getByRole('dialog', { name: 'Change the role?' }).getByRole('button', { name: 'Change the role' }).click();
    await page.getByText('Adam Admin is now moderator').waitFor();
    const members = (await bed.parley.request('GET', `/api/accounts/${site.account_id}/members`, { token: site.api_key })).body.members;
    expect(members.find((m: { id: string }) => m.id === admin.id).role).toBe('moderator');

    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Moderation log' }).click();
    const entry = page.getByRole('row', { name: /Off topic remark/ });
    expect(await entry.textContent()).toContain('Adam Admin (staff)');
    expect(await entry.textContent()).toContain('remove');
    expect(await entry.textContent()).toContain('off topic');
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('gives an overview: comments per day as a chart, pending and flagged counts, top threads, webhook success', async () => {
    const site = await bed.parley.newSite({ siteName: 'Busy blog', moderation: 'guests' });
    const owner = await addStaff(bed.parley, site.account_id, 'owner');
    const thread = pageUrl();
    for (let i = 0; i < 3; i++) await bed.parley.request('POST', '/v1/comments', { token: site.api_key, body: { site_id: site.site_id, thread_url: thread, content: `Published ${i}` } });
    await bed.parley.request('POST', '/v1/comments', { body: { site_id: site.site_id, thread_url: thread, content: 'Waiting', author_name: 'Guest' } });
    const { context, page } = await signedInDashboard(bed.browser, bed.parley, owner.email, '/dashboard/overview');
    await page.getByRole('heading', { name: 'Overview of Busy blog' }).waitFor();
    const chart = page.getByRole('img', { name: /comments in the last 90 days/ });
    expect(await chart.getAttribute('aria-label')).toMatch(/^4 comments in the last 90 days, the most on \d{4}-\d{2}-\d{2} \(4\)$/);
    expect(await page.locator('.chart rect.bar').count()).toBe(90);
    expect(await page.locator('.panel', { hasText: 'Pending' }).locator('.stat').textContent()).toBe('1');
    expect(await page.locator('.panel', { hasText: 'Top threads' }).textContent()).toContain(`${thread.replace('https://', '')} · 4 comments`);
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });
});
