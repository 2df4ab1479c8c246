import { Type } from 'typebox';
import { UNSUBSCRIBE_SCOPES } from './links.ts';
import { READER_MAIL_FREQUENCIES, STAFF_MAIL_FREQUENCIES } from './digest-times.ts';
import { MODERATION_MAIL } from './moderators.ts';

/** One @, something on each side, a dot in the domain, no spaces or angle brackets: the SMTP server judges the rest. */
export const EMAIL_PATTERN = '^[^\\s@<>()",;]+@[^\\s@<>()",;]+\\.[^\\s@<>()",;]+$';

export const ConfirmQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100, description: 'From the confirmation mail' }) });

export const UnsubscribeQuery = Type.Object({
  address: Type.String({ minLength: 1, maxLength: 100 }),
  scope: Type.Enum([...UNSUBSCRIBE_SCOPES], { description: 'comment: replies to one comment; thread: replies on one page; mentions: mails when someone mentions the reader (turns their mention_mail off); follow: follows the page no more; notifications: sets the reader\'s mail frequency to off (digests and per-event mails); all: every mail from the site' }),
  target: Type.String({ maxLength: 100, description: 'The comment or thread id, the follow id for `follow`, the user id for `mentions` and `notifications`; empty for `all`' }),
  sig: Type.String({ minLength: 1, maxLength: 100, description: 'The signature from the mail' }),
});

const TimeZone = Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
  description: 'The IANA time zone (Europe/Berlin) whose 08:00 digests go out at; null: UTC',
});
const ReaderFrequency = Type.Enum([...READER_MAIL_FREQUENCIES], {
  description:
    'instant: a mail per reply, mention, followed page\'s comment and decision on your comments; daily: one digest at 08:00 of your time zone; ' +
    'weekly: one digest on Mondays at 08:00; off: no notification mail (sign-in and confirmation mails still go)',
});

export const ReaderMailSettings = Type.Object({
  notify_replies: Type.Boolean({ description: 'Whether "Email me replies" starts ticked on this reader\'s comments' }),
  email: Type.Union([Type.String(), Type.Null()], { description: 'The address an SSO token gave, if any (used when a comment gives none)' }),
  mail_enabled: Type.Boolean({ description: 'Whether this server sends mail at all' }),
  frequency: ReaderFrequency,
  time_zone: TimeZone,
});
export const ReaderMailChange = Type.Object(
  { notify_replies: Type.Optional(Type.Boolean()), frequency: Type.Optional(ReaderFrequency), time_zone: Type.Optional(TimeZone) },
  { minProperties: 1 },
);

const ModerationMailChoice = Type.Enum([...MODERATION_MAIL], { description: 'off; pending: a mail when a comment waits for moderation; all: also when one is flagged' });
const StaffFrequency = Type.Enum([...STAFF_MAIL_FREQUENCIES], {
  description: 'instant: moderation mails as comments wait (at most one every ten minutes per site); daily: one digest at 08:00 of your time zone, with the counts of every site',
});

export const StaffMailSettings = Type.Object({
  moderation_mail: ModerationMailChoice,
  mail_enabled: Type.Boolean({ description: 'Whether this server sends mail at all' }),
  frequency: StaffFrequency,
  time_zone: TimeZone,
});
export const StaffMailChange = Type.Object(
  { moderation_mail: Type.Optional(ModerationMailChoice), frequency: Type.Optional(StaffFrequency), time_zone: Type.Optional(TimeZone) },
  { minProperties: 1 },
);
