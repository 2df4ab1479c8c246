import { describe, expect, it } from 'vitest';
import { seedDatabase, spawnServer } from '../../test/hardening/child-server.ts';
import { freshDatabaseUrl, pageUrl } from '../../test/helper.ts';
import { endedAfterEach } from '../../test/mailbox.ts';
import { doctor } from '../doctor/doctor.ts';
import { mailWords } from './words.ts';

/** Parley's English words of the mails and their pages. */
const S = mailWords('en');

const { servers, databases } = endedAfterEach();

/** The log lines of a server's output that are JSON (pino's), parsed. */
function logLines(output: string): Array<Record<string, any>> {
  return output.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}

describe('PARLEY_SMTP_URL=log: (mail without an SMTP server)', () => {
  it('writes each mail to the log, its links included, after a start-up line saying it is for development', async () => {
    const database = await freshDatabaseUrl();
    databases.push(database);
    const site = await seedDatabase(database.url);
    const server = await spawnServer(database.url, { PARLEY_SMTP_URL: 'log:', PARLEY_MAIL_FROM: 'comments@example.com' });
    servers.push(server);
    const posted = await fetch(`${server.url}/v1/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ site_id: site.site_id, thread_url: pageUrl(), content: 'Mail me', notify_replies: true, email: 'gina@example.com' }),
    });
    expect(posted.status).toBe(201);

    await expect.poll(() => logLines(server.output()).find((line) => line.mail_to !== undefined), { timeout: 10_000 }).toBeDefined();
    const lines = logLines(server.output());
    const startup = lines.find((line) => /PARLEY_SMTP_URL=log:/.test(line.msg) && line.mail_to === undefined);
    expect(startup?.msg).toMatch(/for development/);
    const written = lines.find((line) => line.mail_to !== undefined)!;
    expect(written).toMatchObject({ level: 30, mail_to: 'gina@example.com', mail_subject: S('confirmSubject', { site: 'Crash site' }) });
    const link = new RegExp(`${S('confirmAction')}: (\\S+)`).exec(written.mail_text)?.[1];
    expect(link).toMatch(/\/v1\/mail\/confirm\?token=mc_/);
    const confirmed = await fetch(`${server.url}${new URL(link!).pathname}${new URL(link!).search}`, { method: 'POST' });
    expect(confirmed.status).toBe(200);
  }, 60_000);

  it('is accepted by parley doctor, which says mail goes to the log', async () => {
    let out = '';
    const code = await doctor({ DATABASE_URL: 'sqlite::memory:', PARLEY_SMTP_URL: 'log:', PARLEY_MAIL_FROM: 'comments@example.com' }, (text) => (out += text));
    expect(out).toMatch(/^warn  smtp: PARLEY_SMTP_URL=log: mails are written to the log, not delivered \(for development only\)$/m);
    expect(out).not.toMatch(/^fail/m);
    expect(code).toBe(0);
  });
});
