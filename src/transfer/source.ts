/** What every format's reader turns its file into: threads, authors and comments, in file order. */

export const FORMATS = ['disqus', 'wxr', 'remark42', 'commento', 'isso', 'parley'] as const;
export type Format = (typeof FORMATS)[number];

/** The longest text field (a tag, a message, a line) a file may hold: 1 MiB characters. */
export const MAX_FIELD = 1 << 20;

/** A file that cannot be imported: the message names the line or record where it broke. */
export class ImportFileError extends Error {}

export type SourceStatus = 'published' | 'pending' | 'spam' | 'removed';

export interface SourceThread {
  kind: 'thread';
  /** The source's id of the thread (unique in the file). */
  sourceId: string;
  /** The page address as the source gives it; an unusable one skips the thread's comments. */
  url: string;
  /** Kept by Parley's own format only. */
  parleyId?: string;
  createdAt?: string;
  /** The page's title, as text (entities already decoded where the source escapes them). */
  title?: string;
  /** The source took no new comments on it. */
  closed?: boolean;
  /** The site took the thread down in the source: its comments come in removed. */
  deleted?: boolean;
}

export interface SourceAuthor {
  /** The source's stable id of the person, or null for a guest (who is then known by name only). */
  sourceId: string | null;
  name: string;
  /** Parley's own format: the user's id and the site's id of them. */
  parleyId?: string;
  externalId?: string;
  avatarUrl?: string | null;
  hasEmail?: boolean;
  hasIp?: boolean;
}

export interface SourceComment {
  kind: 'comment';
  sourceId: string;
  threadSourceId: string;
  parentSourceId: string | null;
  author: SourceAuthor;
  /** The comment's source: an HTML source's converted to the site's formatting (Markdown or plain text, see html-markdown.ts). */
  text: string;
  status: SourceStatus;
  /** Parley's own format states it (e.g. shadow_banned); otherwise it follows from the status. */
  moderationStatus?: string | null;
  deleted: boolean;
  edited: boolean;
  /** UTC ISO 8601 with milliseconds. */
  createdAt: string;
  updatedAt?: string;
  /** The source stated no time zone for createdAt (read as UTC). */
  zoneless: boolean;
  upvotes: number;
  downvotes: number;
  reactions: Record<string, number>;
  /** Pingbacks and trackbacks are skipped. */
  pingback?: boolean;
  /** Parley's own format: the comment's id there. */
  parleyId?: string;
  /** Where in the file, for messages. */
  where: string;
}

export type SourceRecord = SourceThread | SourceComment;

/** Counters a reader adds to the report (e.g. personal data it saw but Parley does not keep). */
export interface ReaderNotes {
  warnings: (source: string, message: string) => void;
}
