import { Type } from 'typebox';
import { UNSUBSCRIBE_SCOPES } from './links.ts';
import { MODERATION_MAIL } from './moderators.ts';

/** One @, something on each side, a dot in the domain, no spaces or angle brackets: the SMTP server judges the rest. */
export const EMAIL_PATTERN = '^[^\\s@<>()",;]+@[^\\s@<>()",;]+\\.[^\\s@<>()",;]+$';

export const ConfirmQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100, description: 'From the confirmation mail' }) });

export const UnsubscribeQuery = Type.Object({
  address: Type.String({ minLength: 1, maxLength: 100 }),
  scope: Type.Enum([...UNSUBSCRIBE_SCOPES], { description: 'comment: replies to one comment; thread: replies on one page; mentions: mails when someone mentions the reader (turns their mention_mail off); all: every mail from the site' }),
  target: Type.String({ maxLength: 100, description: 'The comment or thread id, the user id for `mentions`; empty for `all`' }),
  sig: Type.String({ minLength: 1, maxLength: 100, description: 'The signature from the mail' }),
});

export const ReaderMailSettings = Type.Object({
  notify_replies: Type.Boolean({ description: 'Whether "Email me replies" starts ticked on this reader\'s comments' }),
  email: Type.Union([Type.String(), Type.Null()], { description: 'The address an SSO token gave, if any (used when a comment gives none)' }),
  mail_enabled: Type.Boolean({ description: 'Whether this server sends mail at all' }),
});
export const ReaderMailChange = Type.Object({ notify_replies: Type.Boolean() });

export const StaffMailSettings = Type.Object({
  moderation_mail: Type.Enum([...MODERATION_MAIL], { description: 'off; pending: a mail when a comment waits for moderation; all: also when one is flagged' }),
  mail_enabled: Type.Boolean({ description: 'Whether this server sends mail at all' }),
});
export const StaffMailChange = Type.Object({ moderation_mail: Type.Enum([...MODERATION_MAIL]) });
