import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterEach } from 'vitest';
import type { ChildServer } from './hardening/child-server.ts';
import type { FreshDatabase, TestParley } from './helper.ts';

/** What the SMTP server does with the n-th message (0-based): take it, refuse it (451), or never answer its DATA. */
export type MailBehaviour = (index: number) => 'accept' | 'refuse' | 'hang';

export interface Mailbox {
  /** PARLEY_SMTP_URL for it. */
  url: string;
  /** Messages the server took, parsed. */
  mails: ParsedMail[];
  /** Messages whose DATA began, taken or not. */
  offered: number;
  /** Resolves once `count` messages were taken, or fails after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  /** Resolves once `count` messages began, or fails after `timeoutMs`. */
  waitForOffers(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 (no TLS, no authentication) that keeps every message it takes. */
export async function startMailbox(behaviour: MailBehaviour = () => 'accept'): Promise<Mailbox> {
  const mails: ParsedMail[] = [];
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((w) => w());
  const box = { offered: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 500,
    onData(stream, _session, callback) {
      const index = box.offered++;
      wake();
      const answer = behaviour(index);
      if (answer === 'hang') return void stream.resume();
      simpleParser(stream).then(
        (mail) => {
          if (answer === 'refuse') return callback(Object.assign(new Error('Mailbox busy, try later'), { responseCode: 451 }));
          mails.push(mail);
          callback();
          wake();
        },
        (error) => callback(error),
      );
    },
  });
  // A client killed mid-message resets its connection: that is the test, not a failure of it.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;

  const until = (done: () => boolean, timeoutMs: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      if (done()) return resolve();
      const check = () => {
        if (!done()) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`${what} within ${timeoutMs} ms (taken: ${mails.length}, offered: ${box.offered})`));
      }, timeoutMs);
      waiters.add(check);
    });

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    get offered() {
      return box.offered;
    },
    async waitFor(count, timeoutMs = 10_000) {
      await until(() => mails.length >= count, timeoutMs, `expected ${count} mails`);
      return mails;
    },
    waitForOffers: (count, timeoutMs = 10_000) => until(() => box.offered >= count, timeoutMs, `expected ${count} messages offered`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The settings of a server that sends its mail to `box`, its links on a public origin of its own. */
export function mailingEnv(box: Mailbox): Record<string, string> {
  return { PARLEY_SMTP_URL: box.url, PARLEY_MAIL_FROM: 'comments@example.com', PARLEY_PUBLIC_URL: 'https://comments.example.com' };
}

/**
 * Per test: a Parley (from `start`, which parleysPerTest gives) mailing to a mailbox of its own,
 * the mailbox closed after the test. Settings in `extra` join or replace mailingEnv's.
 */
export function mailingParleysPerTest(start: (env?: Record<string, string>) => Promise<TestParley>) {
  const boxes: Mailbox[] = [];
  afterEach(async () => {
    await Promise.all(boxes.splice(0).map((box) => box.close()));
  });
  return async (extra: Record<string, string> = {}): Promise<{ parley: TestParley; box: Mailbox }> => {
    const box = await startMailbox();
    boxes.push(box);
    return { parley: await start({ ...mailingEnv(box), ...extra }), box };
  };
}

/** The links of a mail's plain text, by their label ("Label: https://..."). */
export function linkIn(mail: ParsedMail, label: string): string {
  const line = (mail.text ?? '').split('\n').find((l) => l.startsWith(`${label}: `));
  if (!line) throw new Error(`no "${label}" link in:\n${mail.text}`);
  return line.slice(label.length + 2).trim();
}

/** A link's path and query, to ask the test server (whose port the mail's origin does not know). */
export function pathOf(link: string): string {
  const url = new URL(link);
  return url.pathname + url.search;
}

/** A header as it was sent, unfolded (mailparser folds every List-* header into one `list` object). */
export function headerOf(mail: ParsedMail, name: string): string | undefined {
  const line = mail.headerLines.find((h) => h.key === name.toLowerCase())?.line;
  return line?.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim();
}

/**
 * What a test file's tests start against real processes, ended after each test: the `parley serve`
 * children killed, the mailboxes closed, the databases dropped. Tests push what they start.
 */
export function endedAfterEach(): { servers: ChildServer[]; boxes: Mailbox[]; databases: FreshDatabase[] } {
  const started = { servers: [] as ChildServer[], boxes: [] as Mailbox[], databases: [] as FreshDatabase[] };
  afterEach(async () => {
    for (const server of started.servers.splice(0)) if (server.process.exitCode === null) server.process.kill('SIGKILL');
    await Promise.all(started.boxes.splice(0).map((box) => box.close()));
    await Promise.all(started.databases.splice(0).map((database) => database.drop()));
  });
  return started;
}
