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
}

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
  upvotes: number;
  downvotes: number;
  score: number;
  wilson: number;
  reaction_counts: string;
  created_at: string;
  updated_at: string;
  /** On top-level comments: whether the public's list, and moderators' list, show it. */
  listed_public: Flag;
  listed_all: Flag;
  /** On top-level comments: moves with every change to what the public sees of it and its replies (migration 0007). */
  subtree_revision: Generated<number>;
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
}

export interface BanTable {
  id: string;
  site_id: string;
  author_ref: string;
  ban_type: string;
  reason: string | null;
  created_by: string;
  created_at: string;
}

export interface ModerationLogTable {
  id: string;
  site_id: string;
  comment_id: string;
  action: string;
  reason: string | null;
  moderator_ref: string;
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
}

export interface WebhookAttemptTable {
  delivery_id: string;
  number: number;
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** An imported comment's source (migration 0015): `source_key` is "<format>:<source id>". */
export interface ImportSourceTable {
  site_id: string;
  source_key: string;
  comment_id: string;
  created_at: string;
}

export interface Database {
  accounts: AccountTable;
  sites: SiteTable;
  api_keys: ApiKeyTable;
  site_users: SiteUserTable;
  sessions: SessionTable;
  threads: ThreadTable;
  comments: CommentTable;
  votes: VoteTable;
  reactions: ReactionTable;
  flags: FlagTable;
  bans: BanTable;
  moderation_log: ModerationLogTable;
  events: EventTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  import_sources: ImportSourceTable;
}
