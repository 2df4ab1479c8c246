import type { Generated } from 'kysely';

/**
 * Column types shared by SQLite and PostgreSQL: booleans are 0/1 integers, timestamps ISO-8601 text
 * (which sorts correctly), JSON documents text. That keeps every query portable.
 */
export type Flag = 0 | 1;

export interface AccountTable {
  id: string;
  name: string;
  plan: string;
  created_at: string;
}

export interface SiteTable {
  id: string;
  account_id: string;
  name: string;
  domains: string;
  moderation_mode: string;
  allow_guests: Flag;
  reactions: string;
  webhook_url: string | null;
  webhook_secret: string | null;
  webhook_events: string;
  created_at: string;
  /** Whether the widget streams changes to readers (migration 0014). */
  live_updates: Generated<Flag>;
  /** Whether an SSO token's `moderator` claim is honoured (migration 0014). */
  sso_moderators: Generated<Flag>;
  /** The spam pipeline's settings given for the site, JSON; '{}' is every default (migration 0017). */
  spam_settings: Generated<string>;
  /** Signs the site's form tokens and proof-of-work challenges; made on first use (migration 0017). */
  form_secret: string | null;
  /** Whether readers may sign in with a code mailed to them (migration 0030). */
  email_sign_in: Generated<Flag>;
  /** Whether a reader's picture at their identity provider becomes their avatar (migration 0030). */
  provider_avatars: Generated<Flag>;
  /** How comments are written: `markdown` or `plain` (migration 0032). */
  formatting: Generated<string>;
  /** How long an author may edit their comment, in seconds; null: always (migration 0032). */
  edit_window_seconds: number | null;
  /** The widget's language when neither its element nor the page names one Parley speaks; null: English (migration 0033). */
  language: Generated<string | null>;
  /** The site's own wording of messages, JSON `{lang: {key: text}}` (migration 0033). */
  strings: Generated<string | null>;
  /** Where readers contest a decision or ask about one: an https URL or a mailto: address (migration 0039). */
  contact: string | null;
}

export interface ApiKeyTable {
  id: string;
  account_id: string;
  name: string;
  role: string;
  key_hash: string;
  site_ids: string | null;
  created_at: string;
  revoked_at: string | null;
  /** The secret's first characters, to recognise it in a list (null for keys made before 0013). */
  prefix: string | null;
  /** Written at most once a minute per key and instance (src/keys/last-used.ts). */
  last_used_at: string | null;
}

export interface SiteUserTable {
  id: string;
  site_id: string;
  external_id: string;
  name: string;
  avatar_url: string | null;
  first_comment_at: string | null;
  created_at: string;
  /** Moves with every vote and reaction of the user (migration 0008). */
  marks_revision: Generated<number>;
  /** The user's comments that only they see: pending, or published while shadow-banned (migration 0009). */
  comments_only_they_see: Generated<number>;
  /** `iat` (seconds) of the SSO token that last set the name and avatar (migration 0014). */
  profile_issued_at: number | null;
  /** From an SSO token's `email` claim (migration 0014); never used to identify the user. */
  email: string | null;
  /** Whether "email me replies" starts ticked for this user (migration 0016). */
  notify_replies: Generated<Flag>;
  /** When an admin erased the user's personal data (migration 0021); null for everyone else. */
  erased_at: Generated<string | null>;
  /** The reader asked to delete their account: erased then, unless they sign in before (migration 0030). */
  erase_after: Generated<string | null>;
  /** Labels a moderator gave the user, shown as badges on their comments: a JSON array (migration 0032). */
  labels: Generated<string>;
  /** Whether the user is mailed when a comment mentions them (migration 0032). */
  mention_mail: Generated<Flag>;
  /** The language the reader last used the widget in: their mails speak it (migration 0033). */
  language: Generated<string | null>;
  /** `instant`, `daily`, `weekly` or `off`: how the reader is mailed of their notifications (migration 0040). */
  mail_frequency: Generated<string>;
  /** IANA time zone of the reader's digest hour; null: UTC (migration 0040). */
  time_zone: Generated<string | null>;
  /** When the reader's next digest is due; null unless they chose one (migration 0040). */
  digest_due_at: Generated<string | null>;
}

export interface SessionTable {
  id: string;
  token_hash: string;
  site_id: string;
  user_id: string;
  moderator: Flag;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
  /** The API key that minted the session (migration 0011); null for sessions minted before it. */
  key_id: string | null;
}

export interface ThreadTable {
  id: string;
  site_id: string;
  url_key: string;
  created_at: string;
  /** Top-level comments the public's list shows (comments.listed_public), and moderators' list. */
  public_total: number;
  all_total: number;
  /** Moves whenever a top-level comment is added or its listing flags change (migration 0007). */
  listing_revision: Generated<number>;
  title: string | null;
  /** Set while the thread takes no new comments. */
  closed_at: string | null;
  /** The number of the thread's latest live event (migration 0014). */
  live_seq: Generated<number>;
}

/** What the public saw change in a thread, numbered per thread (migration 0014); only the latest are kept. */
export interface LiveEventTable {
  thread_id: string;
  seq: number;
  type: string;
  comment_id: string;
  /** Always null: events keep only the comment's id (migration 0027); kept for the previous release during an upgrade. */
  data: string | null;
  created_at: string;
}

/** A change of a comment's place in the moderation queue, under its outbox event's id (migration 0020). */
export interface QueueEventTable {
  id: string;
  site_id: string;
  comment_id: string;
  /** The outbox event: comment.created, comment.updated, comment.flagged, moderation.action or comment.deleted. */
  type: string;
  /** For moderation.action: the action taken. */
  action: string | null;
  /** The comment's status after the change. */
  status: string;
  created_at: string;
}

/** A site's SSO signing secret; its id is the JWT `kid` (migration 0014). */
export interface SsoSecretTable {
  id: string;
  site_id: string;
  secret: string;
  created_at: string;
}

/** SSO token ids already exchanged, kept until their token would have expired (migration 0014). */
export interface SsoUsedTokenTable {
  site_id: string;
  jti: string;
  expires_at: string;
}

/**
 * What votes, reactions and replies change of a comment, in a narrow row of its own that its trigger
 * makes with the comment (migration 0041): a vote rewrites this, not the comment's row.
 */
export interface CommentCountsTable {
  comment_id: string;
  thread_id: string;
  root_id: string;
  top_level: Flag;
  upvotes: Generated<number>;
  downvotes: Generated<number>;
  score: Generated<number>;
  wilson: Generated<number>;
  reaction_counts: Generated<string>;
  /** When a vote or reaction last changed the counts the public sees; strictly increasing per comment (migration 0020). */
  counts_changed_at: Generated<string | null>;
  /** Copies of the comment's listing flags (top-level comments), for the orders by votes. */
  listed_public: Generated<Flag>;
  listed_all: Generated<Flag>;
  /** On top-level comments: moves with every change to what the public sees of it and its replies (migration 0007). */
  subtree_revision: Generated<number>;
}

/** A comment's row. Its counts, sort keys and revision of 0001, 0007 and 0020 are in `comment_counts` since 0041 (the columns stay, for the release before). */
export interface CommentTable {
  id: string;
  site_id: string;
  thread_id: string;
  parent_id: string | null;
  root_id: string;
  author_ref: string | null;
  author_name: string;
  content: string | null;
  status: string;
  moderation_status: string | null;
  is_deleted: Flag;
  is_edited: Flag;
  created_at: string;
  updated_at: string;
  /** On top-level comments: whether the public's list, and moderators' list, show it. */
  listed_public: Flag;
  listed_all: Flag;
  /** Flags not dismissed by a moderator (migration 0013). */
  flag_count: Generated<number>;
  /** Why the spam pipeline held the comment: a JSON array of {check, detail}; null when it held nothing (migration 0017). */
  spam_reasons: string | null;
  /** `content` rendered and sanitized when it was written (src/formatting); null once deleted (migration 0032). */
  content_html: string | null;
  /** The users the comment mentions, JSON [{user_id, name}] (migration 0032). */
  mentions: Generated<string>;
  /** The author's badges when it was written, and their labels since: JSON array of strings (migration 0032). */
  author_badges: Generated<string>;
  /** When a moderator pinned it; null when it is not pinned (migration 0032). */
  pinned_at: Generated<string | null>;
}

/** A comment's earlier texts, kept for moderators when its author edits it (migration 0032). */
export interface CommentRevisionTable {
  id: string;
  comment_id: string;
  site_id: string;
  content: string;
  content_html: string;
  /** When this text was written (the comment's creation or an earlier edit). */
  written_at: string;
  /** When an edit replaced it, and by whom (the editor's ref). */
  replaced_at: string;
  replaced_by: string | null;
}

/** What the spam pipeline's duplicate and velocity checks count: one row per comment, kept a day (migration 0017). */
export interface SpamSignalTable {
  comment_id: string;
  site_id: string;
  /**
   * The thread's URL key (threads.url_key): the spam checks count a thread's pace by it, in their
   * log in memory (src/spam/signal-store.ts).
   */
  thread_key: string;
  /** The author's ref, or `ip:<range>` for a guest. */
  author_key: string;
  /** A guest's /24 (IPv4) or /64 (IPv6); null for signed-in authors and keys. */
  ip_range: string | null;
  /** SHA-256 of the normalised text. */
  text_hash: string;
  created_at: string;
}

/** Proofs of work already accepted, refused again until their challenge expires (migration 0017). */
export interface SpamUsedProofTable {
  site_id: string;
  signature: string;
  expires_at: string;
}

export interface VoteTable {
  comment_id: string;
  voter_ref: string;
  value: number;
  by_moderator: Flag;
  created_at: string;
}

export interface ReactionTable {
  comment_id: string;
  reactor_ref: string;
  type: string;
  created_at: string;
}

export interface FlagTable {
  comment_id: string;
  flagger_ref: string;
  reason: string | null;
  created_at: string;
  dismissed_at: string | null;
}

export interface BanTable {
  id: string;
  site_id: string;
  author_ref: string;
  ban_type: string;
  reason: string | null;
  created_by: string;
  created_at: string;
  /** An outright ban stops applying then; null: never. */
  expires_at: string | null;
}

/** A moderator's note on a site user. */
export interface CommenterNoteTable {
  id: string;
  site_id: string;
  user_id: string;
  body: string;
  created_by: string;
  created_at: string;
}

/** An author's comments on a site by status, kept by triggers (migration 0013). */
export interface AuthorCountTable {
  site_id: string;
  author_ref: string;
  published: number;
  pending: number;
  removed: number;
  spam: number;
}

/** A thread's comments in each tab of the moderation queue, kept by triggers; no row while none waits there (migration 0024). */
export interface ThreadQueueCountTable {
  site_id: string;
  thread_id: string;
  pending: number;
  flagged: number;
  spam: number;
  removed: number;
}

/** A finished day's comments of a site by status, counted once and then kept exact by triggers. */
export interface SiteDailyCountTable {
  site_id: string;
  day: string;
  published: number;
  pending: number;
  removed: number;
  spam: number;
}

export interface ModerationLogTable {
  id: string;
  site_id: string;
  comment_id: string;
  action: string;
  reason: string | null;
  moderator_ref: string;
  created_at: string;
  /** What undoing the action restores, JSON (src/moderation/undo.ts); null when it cannot be undone (migration 0036). */
  undo: string | null;
}

/** A site's spam classifier (src/spam/classifier): what it has learnt, in total. */
export interface ClassifierModelTable {
  site_id: string;
  spam_examples: Generated<number>;
  ham_examples: Generated<number>;
  /** Features (distinct words of a comment) counted over the comments of each kind. */
  spam_features: Generated<number>;
  ham_features: Generated<number>;
  /** Moves with every change: an instance whose model in memory is of another version reads it again. */
  version: Generated<number>;
}

/** A site's classifier counts for one word bucket: how many comments of each kind held a word of it. */
export interface ClassifierCountTable {
  site_id: string;
  bucket: number;
  spam: number;
  ham: number;
}

/** A moderator's decision the classifier learnt from: one per comment, its label as it is now. */
export interface ClassifierExampleTable {
  comment_id: string;
  site_id: string;
  label: 'spam' | 'ham';
  /** The comment's feature buckets when it was learnt (base64 of a Uint32Array), to unlearn exactly what was learnt. */
  features: string;
  created_at: string;
}

/** Domain events, written in the transaction of the change that caused them (the webhook outbox). */
export interface EventTable {
  id: string;
  account_id: string;
  site_id: string | null;
  type: string;
  data: string;
  created_at: string;
}

/** One webhook delivery of one event to one site; attempts are kept beside it. */
export interface WebhookDeliveryTable {
  id: string;
  site_id: string;
  /** null for a test delivery, which no event caused. */
  event_id: string | null;
  event: string;
  body: string;
  state: string;
  attempt_count: number;
  /** Attempts since the delivery was (re)queued; the retry schedule counts these. */
  run_attempts: number;
  /** A test delivery is tried once, never retried. */
  is_test: Flag;
  next_attempt_at: string | null;
  /** Set while a worker holds the delivery; an expired lease is taken over. */
  lease_until: string | null;
  created_at: string;
  /** A chat alert's message (src/alerts) goes to that alert's target; null: the site's webhook. */
  alert_id: string | null;
}

export interface WebhookAttemptTable {
  delivery_id: string;
  number: number;
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** A person who runs sites (migration 0012); never a commenter. `email` is stored lower-cased. */
export interface StaffTable {
  id: string;
  email: string;
  name: string;
  /** `scrypt$N$r$p$<salt base64>$<hash base64>`: the parameters travel with the hash. */
  password_hash: string;
  created_at: string;
  updated_at: string;
  /** Which moderation mails they get: `off`, `pending` (comments waiting), `all` (and flags) (migration 0016). */
  moderation_mail: Generated<string>;
  /** When the person followed the link mailed to `email`; null: not theirs yet, no mail goes to it (migration 0027). */
  email_verified_at: string | null;
  /** The language they chose for the dashboard and their mails; null: the browser's (migration 0033). */
  language: Generated<string | null>;
  /** `instant` (a moderation mail as comments wait) or `daily` (one digest a day) (migration 0040). */
  moderation_mail_frequency: Generated<string>;
  /** IANA time zone of the digest hour; null: UTC (migration 0040). */
  time_zone: Generated<string | null>;
  /** When the next moderation digest is due; null unless they chose one (migration 0040). */
  digest_due_at: Generated<string | null>;
}

export interface StaffMembershipTable {
  staff_id: string;
  account_id: string;
  role: string;
  /** JSON array of site ids a moderator is limited to; null: every site of the account. */
  site_ids: string | null;
  created_at: string;
}

export interface StaffSessionTable {
  id: string;
  token_hash: string;
  staff_id: string;
  /** The secret the session's CSRF tokens are made from and checked against. */
  csrf_secret: string;
  ip: string;
  user_agent: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** Single-use links: invites, password resets and the first run's setup link. */
export interface StaffLinkTable {
  id: string;
  kind: string;
  token_hash: string;
  account_id: string;
  /** The person a reset link is for. */
  staff_id: string | null;
  /** An invite limited to one address. */
  email: string | null;
  role: string | null;
  site_ids: string | null;
  created_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  used_by: string | null;
  revoked_at: string | null;
}

/** Who (a staff member, a key, the CLI) changed what in an account. */
export interface AuditLogTable {
  id: string;
  account_id: string;
  actor_ref: string;
  actor_name: string;
  action: string;
  target_ref: string | null;
  data: string;
  created_at: string;
}

/** An imported comment's source (migration 0015): `source_key` is "<format>:<source id>". */
export interface ImportSourceTable {
  site_id: string;
  source_key: string;
  comment_id: string;
  created_at: string;
}

/** An import started through the management API (migration 0018); `report` is the import's report as JSON. */
export interface ImportJobTable {
  id: string;
  site_id: string;
  status: string;
  format: string | null;
  dry_run: number;
  file_bytes: number;
  records_read: Generated<number>;
  comments_processed: Generated<number>;
  report: string | null;
  error: string | null;
  error_line: number | null;
  started_by_ref: string;
  started_by_name: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  lease_until: string;
}

/** A reader's address on a site (migration 0016): personal data, shown only to staff. */
export interface MailAddressTable {
  id: string;
  site_id: string;
  /** Lower-cased. */
  email: string;
  /** The site user it came from, if signed in. */
  user_id: string | null;
  /** Signs this address's unsubscribe links (HMAC key, so kept as it is). */
  link_key: string;
  confirmed_at: string | null;
  /** SHA-256 of the pending confirmation link's token; null once used. */
  confirm_token_hash: string | null;
  confirm_expires_at: string | null;
  /** Set by "unsubscribe from everything": no mail at all to it on this site. */
  unsubscribed_at: string | null;
  created_at: string;
  /** The language of the widget the address was last given in: its mails speak it (migration 0033). */
  language: Generated<string | null>;
}

/** A comment whose replies its author wants mailed (migration 0016). */
export interface MailSubscriptionTable {
  comment_id: string;
  address_id: string;
  thread_id: string;
  created_at: string;
  unsubscribed_at: string | null;
  /** Replies are mailed only once set: by its own confirmation link, or made by the address owner's session (migration 0027). */
  confirmed_at: string | null;
  /** SHA-256 of the address's pending confirmation link that confirms this subscription, if one was mailed for it. */
  confirm_token_hash: string | null;
}

/** A mail to send, queued in the transaction of its cause (migration 0016). */
export interface MailOutboxTable {
  id: string;
  /** `<kind>:<cause>:<recipient>`: the same cause never queues a second mail to the same person. */
  idempotency_key: string;
  kind: string;
  recipient: string;
  site_id: string | null;
  /** Reply mails: the thread, so a recipient's replies of one thread roll into one mail. */
  thread_id: string | null;
  /** What the mail is made from, as JSON (its kind says which fields). */
  data: string;
  /** `pending`, `sent`, `failed`, or `dropped` (its cause is gone: unsubscribed, reply hidden). */
  state: string;
  attempt_count: number;
  next_attempt_at: string | null;
  lease_until: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

/** An identity provider a site's readers sign in with (migration 0030). */
export interface IdentityProviderTable {
  id: string;
  site_id: string;
  /** oidc, github, google, gitlab or microsoft. */
  type: string;
  name: string;
  client_id: string;
  /** Sent to the provider as it is, so kept as it is; never shown again. */
  client_secret: string;
  /** The OpenID issuer (or GitHub Enterprise's address); null: the type's own. */
  issuer: string | null;
  created_at: string;
  updated_at: string;
}

/** One way a site user signs in (migration 0030): `email` with the address as subject, or an identity provider's id and its subject. */
export interface ReaderIdentityTable {
  id: string;
  site_id: string;
  user_id: string;
  /** `email`, or the identity provider's id. */
  provider: string;
  subject: string;
  /** Lower-cased. */
  email: string | null;
  /** Whether the address was proven: by a code, or vouched for by the provider. */
  email_verified: Flag;
  created_at: string;
  last_used_at: string;
}

/** A sign-in code and link mailed to a reader (migration 0030): hashed, single use, a few wrong codes end it. */
export interface SignInCodeTable {
  id: string;
  site_id: string;
  /** Lower-cased. */
  email: string;
  code_hash: string;
  link_token_hash: string;
  /** The page the link brings the reader back to, signed in. */
  return_to: string | null;
  failed_attempts: number;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/** A sign-in at an identity provider in progress, under the hash of its `state` (migration 0030); used once. */
export interface ProviderSignInTable {
  state_hash: string;
  site_id: string;
  provider_id: string;
  code_verifier: string;
  nonce: string;
  return_to: string;
  /** `popup` (the session goes to the opener by postMessage) or `redirect` (to return_to, in its fragment). */
  mode: string;
  expires_at: string;
  created_at: string;
}

/** A reader following a thread: told of every new public comment in it (migration 0037). */
export interface FollowTable {
  id: string;
  site_id: string;
  user_id: string;
  thread_id: string;
  created_at: string;
}

/** What a reader was told: `reply`, `mention`, `followed_thread` or `moderation` (migration 0037). */
export interface NotificationTable {
  id: string;
  site_id: string;
  user_id: string;
  kind: string;
  comment_id: string;
  thread_id: string;
  /** What made it, unique per reader (`reply:<comment>`, `moderation:<log entry>`...). */
  cause: string;
  /** JSON: a moderation notice's `action` and `reason`. */
  data: Generated<string>;
  created_at: string;
  read_at: string | null;
  /** When a mail told of it (at once or in a digest); null: none has yet. */
  mailed_at: string | null;
}

/** A fan-out queued in the transaction of its cause, done by the notification worker (migration 0037). */
export interface SiteAlertTable {
  id: string;
  site_id: string;
  kind: string;
  url: string;
  token: string | null;
  chat_id: string | null;
  room: string | null;
  /** JSON array of event names. */
  events: string;
  flag_threshold: number;
  created_at: string;
}

export interface NotificationJobTable {
  id: string;
  site_id: string;
  /** `published` (a comment the public now sees) or `decision` (a moderator's decision on a reader's comment). */
  kind: string;
  comment_id: string;
  data: Generated<string>;
  /** `pending` or `done`. */
  state: string;
  /** The last follower handled (user id), so a fan-out cut short resumes after it. */
  cursor: string | null;
  attempt_count: Generated<number>;
  next_attempt_at: string;
  lease_until: string | null;
  created_at: string;
}

/** A reader asking the moderators to look again at a decision on their comment (migration 0039). */
export interface DecisionContestTable {
  id: string;
  site_id: string;
  comment_id: string;
  user_id: string;
  message: string;
  /** `removed`, `spam` or `held`: what the comment was when contested. */
  decision: string;
  /** The moderation log entry that decided it; null for a comment held on arrival by the site's rules. */
  decision_log_id: string | null;
  /** `open` or `resolved`. */
  state: string;
  /** `upheld` or `reversed` once resolved. */
  outcome: string | null;
  note: string | null;
  /** The moderator who resolved it (stf_, key_ or usr_). */
  resolved_by: string | null;
  resolved_at: string | null;
  created_at: string;
}

export interface Database {
  accounts: AccountTable;
  sites: SiteTable;
  api_keys: ApiKeyTable;
  site_users: SiteUserTable;
  sessions: SessionTable;
  threads: ThreadTable;
  live_events: LiveEventTable;
  queue_events: QueueEventTable;
  sso_secrets: SsoSecretTable;
  sso_used_tokens: SsoUsedTokenTable;
  comments: CommentTable;
  comment_counts: CommentCountsTable;
  comment_revisions: CommentRevisionTable;
  votes: VoteTable;
  reactions: ReactionTable;
  flags: FlagTable;
  bans: BanTable;
  commenter_notes: CommenterNoteTable;
  author_counts: AuthorCountTable;
  site_daily_counts: SiteDailyCountTable;
  thread_queue_counts: ThreadQueueCountTable;
  moderation_log: ModerationLogTable;
  decision_contests: DecisionContestTable;
  classifier_models: ClassifierModelTable;
  classifier_counts: ClassifierCountTable;
  classifier_examples: ClassifierExampleTable;
  events: EventTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  staff: StaffTable;
  staff_memberships: StaffMembershipTable;
  staff_sessions: StaffSessionTable;
  staff_links: StaffLinkTable;
  audit_log: AuditLogTable;
  import_sources: ImportSourceTable;
  import_jobs: ImportJobTable;
  mail_addresses: MailAddressTable;
  mail_subscriptions: MailSubscriptionTable;
  mail_outbox: MailOutboxTable;
  spam_signals: SpamSignalTable;
  spam_used_proofs: SpamUsedProofTable;
  identity_providers: IdentityProviderTable;
  reader_identities: ReaderIdentityTable;
  sign_in_codes: SignInCodeTable;
  provider_sign_ins: ProviderSignInTable;
  follows: FollowTable;
  notifications: NotificationTable;
  notification_jobs: NotificationJobTable;
  site_alerts: SiteAlertTable;
}
