import type { DialogStrings } from './dialog-strings.ts';

/**
 * Every word the widget shows, in English; `ParleyComments.setStrings(lang, {...})` adds or replaces
 * them, and those of the sign-in and account dialogs (dialog-strings.ts, loaded with the dialogs).
 */
export const ENGLISH = {
  heading: 'Comments',
  sortBy: 'Sort by',
  sort_newest: 'Newest',
  sort_oldest: 'Oldest',
  sort_top: 'Top',
  sort_best: 'Best',
  loading: 'Loading comments…',
  empty: 'No comments yet. Start the conversation.',
  write: 'Write a comment',
  guestName: 'Your name (optional)',
  notifyReplies: 'Email me replies',
  notifyEmail: 'Your email (only for reply mails; you confirm it first)',
  post: 'Post comment',
  tabWrite: 'Write',
  tabPreview: 'Preview',
  formatting: 'Formatting',
  tool_bold: 'Bold',
  tool_italic: 'Italic',
  tool_link: 'Link',
  tool_quote: 'Quote',
  tool_code: 'Code',
  previewLoading: 'Loading the preview…',
  previewEmpty: 'Nothing to preview yet.',
  mentionList: 'People to mention',
  mentionsFound: 'People to mention: {count}. Up and down arrows choose, Enter inserts, Escape closes.',
  signedInAs: 'Commenting as {name}',
  signInToComment: 'Sign in to join the conversation.',
  reply: 'Reply',
  replyTo: 'Reply to {name}',
  sendReply: 'Post reply',
  edit: 'Edit',
  editLabel: 'Edit your comment',
  save: 'Save',
  cancel: 'Cancel',
  delete: 'Delete',
  confirmDelete: 'Delete this comment?',
  yesDelete: 'Yes, delete',
  flag: 'Report',
  flagged: 'Reported. Thank you, a moderator will look at it.',
  deleted: 'This comment was deleted.',
  edited: 'edited',
  pinned: 'Pinned',
  badge_staff: 'Staff',
  badge_moderator: 'Moderator',
  badge_verified: 'Verified',
  guest: 'Guest',
  guestHint: 'posted without signing in, the name is not verified',
  upvote: 'Upvote',
  downvote: 'Downvote',
  upvotes: 'upvotes',
  downvotes: 'downvotes',
  loadMore: 'Load more comments',
  newComment: 'Show 1 new comment',
  newComments: 'Show {count} new comments',
  moreReplies: 'Show more replies',
  retry: 'Try again',
  status_pending: 'Awaiting moderation',
  status_removed: 'Removed',
  status_spam: 'Spam',
  status_shadow_banned: 'Shadow-banned',
  moderate: 'Moderate',
  mod_approve: 'Approve',
  mod_remove: 'Remove',
  mod_spam: 'Spam',
  mod_shadow_ban: 'Shadow-ban author',
  mod_unhide: 'Unhide author',
  moderated: 'Done: {action}.',
  reaction_funny: 'Funny',
  reaction_interesting: 'Interesting',
  reaction_insightful: 'Insightful',
  signIn: 'Sign in',
  signInHint: 'Sign in to vote, get replies by email and edit your comments from any device.',
  dialogUnavailable: 'That did not open: the comment service could not be reached. Check your connection and try again.',
  yourAccount: 'Your account',
  signOut: 'Sign out',
  error_rate_limited: 'You are doing that too often. Try again in {seconds} s.',
  error_rate_limited_minutes: 'You are doing that too often. Try again in {minutes} minutes.',
  error_rate_limited_later: 'You are doing that too often. Try again in a moment.',
  error_validation_failed: 'Please check your text: {detail}',
  error_banned: 'You are banned from commenting on this site.',
  error_unauthorized: 'You need to sign in again to do that.',
  error_forbidden: 'You are not allowed to do that.',
  error_not_found: 'This comment is no longer available.',
  error_conflict: 'This comment was deleted in the meantime.',
  error_payload_too_large: 'That text is too long.',
  error_edit_window_closed: 'The time for editing this comment has run out, so your changes were not saved. Copy your text if you want to keep it.',
  error_network: 'The comment service could not be reached. Check your connection and try again.',
  error_other: 'Something went wrong ({detail}). Please try again.',
};

/** Every word a site can set: the widget's and its dialogs'. */
export type Strings = typeof ENGLISH & DialogStrings;
/** The words embed.js holds: its own, and whichever of the dialogs' the site set. */
export type WidgetStrings = typeof ENGLISH & Partial<DialogStrings>;
export type StringKey = keyof Strings;

const tables = new Map<string, Partial<Strings>>([['en', {}]]);

export function setStrings(lang: string, strings: Partial<Strings>): void {
  const key = lang.toLowerCase();
  tables.set(key, { ...tables.get(key), ...strings });
}

/** The table for a language tag (`fr-CA` falls back to `fr`), over English; and the tag it resolved to. */
export function stringsFor(lang: string): { lang: string; strings: WidgetStrings } {
  const tag = lang.toLowerCase();
  for (const candidate of [tag, tag.split('-')[0]]) {
    const table = tables.get(candidate);
    if (table) return { lang: candidate, strings: { ...ENGLISH, ...table } };
  }
  return { lang: 'en', strings: ENGLISH };
}

export function format(template: string, values: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

export interface ProblemLike {
  status: number;
  code: string;
  detail: string;
  retryAfter: number | null;
  errors?: Array<{ path: string; message: string }>;
}

/** The inline message for a failed call: the problem's code picks the words, its details fill them in. */
export function problemMessage(problem: ProblemLike, strings: WidgetStrings): string {
  switch (problem.code) {
    case 'rate_limited':
      if (problem.retryAfter === null) return strings.error_rate_limited_later;
      // Limits per hour (sign-in mails) can ask for a long wait: minutes read better than thousands of seconds.
      return problem.retryAfter < 120
        ? format(strings.error_rate_limited, { seconds: problem.retryAfter })
        : format(strings.error_rate_limited_minutes, { minutes: Math.ceil(problem.retryAfter / 60) });
    case 'validation_failed':
    case 'invalid_json': {
      const detail = problem.errors?.length ? problem.errors.map((e) => `${e.path.split('/').pop()} ${e.message}`).join('; ') : problem.detail;
      return format(strings.error_validation_failed, { detail });
    }
    case 'unauthorized':
    case 'banned':
    case 'forbidden':
    case 'not_found':
    case 'conflict':
    case 'payload_too_large':
    case 'edit_window_closed':
    case 'network':
      return strings[`error_${problem.code}`];
    default:
      return format(strings.error_other, { detail: problem.detail || `HTTP ${problem.status}` });
  }
}

/** Retry-After is delta-seconds or an HTTP date. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}
