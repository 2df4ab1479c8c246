import type { ParsedMail } from 'mailparser';
import { mailWords } from '../src/mail/words.ts';
import type { TestParley } from './helper.ts';
import { linkIn, pathOf, type Mailbox } from './mailbox.ts';

/** Parley's English words of the mails and their pages. */
const S = mailWords('en');

/** The domain of the sites readers sign in on in these tests, and a page of it. */
export const READER_DOMAIN = 'blog.example.com';
export const READER_PAGE = `https://${READER_DOMAIN}/posts/tea`;

/** A site readers may sign in on by email: it lists its domain (mail is the server's). */
export async function signInSite(parley: TestParley, siteName = 'Tea Blog') {
  return parley.newSite({ siteName, domains: [READER_DOMAIN] });
}

/** The code and the link's path of a sign-in mail. */
export function signInMail(mail: ParsedMail): { code: string; link: string } {
  const code = /^ {4}(\d{6})$/m.exec(mail.text ?? '')?.[1];
  if (!code) throw new Error(`no code in:\n${mail.text}`);
  return { code, link: pathOf(linkIn(mail, S('signInAction'))) };
}

/** Asks for a code for `email` and waits for its mail. */
export async function mailedCode(parley: TestParley, box: Mailbox, siteId: string, email: string, returnTo?: string) {
  const before = box.mails.length;
  const asked = await parley.request('POST', '/v1/auth/email', { body: { site_id: siteId, email, return_to: returnTo } });
  if (asked.status !== 202) throw new Error(`asking for a code: ${asked.status} ${JSON.stringify(asked.body)}`);
  const mails = await box.waitFor(before + 1);
  return signInMail(mails[before]);
}

export function verify(parley: TestParley, siteId: string, email: string, code: string, name?: string) {
  return parley.request('POST', '/v1/auth/email/verify', { body: { site_id: siteId, email, code, name } });
}
