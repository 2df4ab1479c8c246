import { describe, expect, it } from 'vitest';
import type { QueueItem } from './actions.ts';
import { flagGroups, reasonText, similarOf } from './reasons.tsx';

type Reason = QueueItem['spam_reasons'][number];

describe("a queue card's reasons", () => {
  it('words a reason from its code and values, and falls back to the server’s words for a reason without a code', () => {
    expect(reasonText({ check: 'form', code: 'form_too_fast', values: { seconds: 0.04, minimum: 3 }, detail: 'sent 0.0 s after…' })).toBe('Sent 0.0 s after the form was shown (minimum 3 s)');
    expect(reasonText({ check: 'duplicate', code: 'duplicate_authors', values: { authors: 4 }, detail: '' })).toBe('The same text from several authors on the site within an hour: 4');
    expect(reasonText({ check: 'words', detail: 'holds "pills", on the site\'s list of suspect words' })).toBe('holds "pills", on the site\'s list of suspect words');
    expect(reasonText({ check: 'future', code: 'not_known_yet', values: {}, detail: 'a check this dashboard predates' })).toBe('a check this dashboard predates');
  });

  it('says how sure the spam classifier is, in percent, and which earlier decisions it resembles', () => {
    const similar = [
      { comment_id: 'cmt_1', excerpt: 'cheap pills here', decision: 'spam' },
      { comment_id: 'cmt_2', excerpt: 'nice article', decision: 'ham' },
    ];
    const reason = { check: 'classifier', code: 'classifier', values: { score: 0.973, similar }, detail: '' } as unknown as Reason;
    expect(reasonText(reason)).toBe('The spam classifier is 97% sure this is spam');
    expect(similarOf(reason)).toEqual(similar);
  });

  it('groups flags by reason with counts, the most given first, "no reason given" last of equals', () => {
    const at = '2026-01-01T00:00:00Z';
    const flags = [null, 'spam', 'harassment', 'harassment', ' ', 'harassment'].map((reason) => ({ reason, created_at: at }));
    expect(flagGroups(flags)).toEqual([
      { reason: 'harassment', count: 3 },
      { reason: 'no reason given', count: 2 },
      { reason: 'spam', count: 1 },
    ]);
    expect(flagGroups([{ reason: null, created_at: at }, { reason: 'spam', created_at: at }])).toEqual([
      { reason: 'spam', count: 1 },
      { reason: 'no reason given', count: 1 },
    ]);
  });
});
