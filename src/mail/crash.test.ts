import { describe, expect, it } from 'vitest';
import { freshDatabaseUrl, pageUrl } from '../../test/helper.ts';
import { seedDatabase, spawnServer, type ChildServer } from '../../test/hardening/child-server.ts';
import { endedAfterEach, startMailbox } from '../../test/mailbox.ts';
import { sleep } from '../../test/receiver.ts';

const { servers, boxes, databases } = endedAfterEach();

async function setUp(behaviour: Parameters<typeof startMailbox>[0]) {
  const box = await startMailbox(behaviour);
  boxes.push(box);
  const database = await freshDatabaseUrl();
  databases.push(database);
  const site = await seedDatabase(database.url);
  const env = { PARLEY_SMTP_URL: box.url, PARLEY_MAIL_FROM: 'comments@example.com', PARLEY_MAIL_TIMEOUT: '2s', PARLEY_MAIL_RETRY_DELAYS: '1s,1s,1s' };
  const serve = async () => {
    const server = await spawnServer(database.url, env);
    servers.push(server);
    return server;
  };
  /** A guest's comment with "Email me replies": its confirmation mail is queued with it. */
  const comment = (server: ChildServer) =>
    fetch(`${server.url}/v1/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ site_id: site.site_id, thread_url: pageUrl(), content: 'Mail me', notify_replies: true, email: 'gina@example.com' }),
    });
  return { box, serve, comment };
}

describe('mail and crashes', () => {
  it('sends exactly one mail after a SIGKILL between queueing it and the SMTP server taking it', async () => {
    let phase = 1;
    const { box, serve, comment } = await setUp(() => (phase === 1 ? 'hang' : 'accept'));
    const first = await serve();
    expect((await comment(first)).status).toBe(201);
    await box.waitForOffers(1);
    first.process.kill('SIGKILL');
    await first.exited;

    phase = 2;
    await serve();
    // The dead worker's lease (2 × PARLEY_MAIL_TIMEOUT + 5 s) runs out, then the mail goes once.
    const [mail] = await box.waitFor(1, 20_000);
    expect(mail.to).toMatchObject({ value: [{ address: 'gina@example.com' }] });
    await sleep(3_000);
    expect(box.mails).toHaveLength(1);
  }, 60_000);

  it('retries a mail the SMTP server refuses, and logs each refusal', async () => {
    const { box, serve, comment } = await setUp((index) => (index < 2 ? 'refuse' : 'accept'));
    const server = await serve();
    expect((await comment(server)).status).toBe(201);
    await box.waitFor(1, 20_000);
    expect(box.offered).toBe(3);
    const refusals = server.output().split('\n').filter((line) => line.includes('the SMTP server did not take a mail'));
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toContain('451');
    // The log names the mail, not the address it goes to.
    expect(server.output()).not.toContain('gina@example.com');
  }, 60_000);
});
