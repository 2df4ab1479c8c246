/** A thread and a comment as an export reads them. */

export interface ExportedThread {
  id: string;
  url_key: string;
  created_at: string;
  title: string | null;
  closed_at: string | null;
}

export interface ExportedComment {
  id: string;
  thread_id: string;
  parent_id: string | null;
  author_ref: string | null;
  author_name: string;
  author_external_id: string | null;
  /** The address the author gave for reply mails, else the one their SSO token gave (personal data). */
  author_email: string | null;
  content: string | null;
  status: string;
  moderation_status: string | null;
  is_deleted: number;
  is_edited: number;
  upvotes: number;
  downvotes: number;
  reaction_counts: string;
  created_at: string;
  updated_at: string;
}
