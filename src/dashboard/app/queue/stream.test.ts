import { describe, expect, it } from 'vitest';
import { changeKind, entersTab, leavesTab, type QueueChange } from './stream.ts';

const change = (type: QueueChange['type'], status: QueueChange['status'], action?: string): QueueChange => ({ type, comment_id: 'cmt_1', site_id: 'site_1', status, ...(action && { action }) });

describe("the queue's reading of stream changes", () => {
  it('announces a held comment on Pending, a flag on Flagged, a spam verdict on Spam, and any new comment on All', () => {
    expect(entersTab('pending', change('comment.created', 'pending'))).toBe(true);
    expect(entersTab('pending', change('comment.updated', 'pending'))).toBe(true);
    expect(entersTab('flagged', change('comment.flagged', 'published'))).toBe(true);
    expect(entersTab('spam', change('moderation.action', 'spam', 'spam'))).toBe(true);
    expect(entersTab('all', change('comment.created', 'pending'))).toBe(true);
    // An approval takes a comment out of Pending; it does not bring one into it.
    expect(entersTab('pending', change('moderation.action', 'published', 'approve'))).toBe(false);
    expect(entersTab('all', change('moderation.action', 'published', 'approve'))).toBe(false);
    expect(entersTab('removed', change('comment.deleted', 'removed'))).toBe(false);
  });

  it('marks a shown comment as handled when it leaves its tab, and not when it stays', () => {
    expect(leavesTab('pending', change('moderation.action', 'published', 'approve'))).toBe(true);
    expect(leavesTab('pending', change('comment.deleted', 'pending'))).toBe(true);
    expect(leavesTab('pending', change('moderation.action', 'pending', 'shadow_ban'))).toBe(false);
    expect(leavesTab('flagged', change('moderation.action', 'published', 'dismiss_flags'))).toBe(true);
    expect(leavesTab('flagged', change('moderation.action', 'removed', 'remove'))).toBe(true);
    expect(leavesTab('flagged', change('comment.flagged', 'published'))).toBe(false);
    expect(leavesTab('all', change('moderation.action', 'spam', 'spam'))).toBe(false);
  });

  it('says in words what became of a comment', () => {
    expect(changeKind(change('moderation.action', 'published', 'approve'))).toBe('approved');
    expect(changeKind(change('moderation.action', 'spam', 'spam'))).toBe('spam');
    expect(changeKind(change('moderation.action', 'published', 'dismiss_flags'))).toBe('flags_dismissed');
    expect(changeKind(change('comment.deleted', 'pending'))).toBe('deleted');
  });
});
