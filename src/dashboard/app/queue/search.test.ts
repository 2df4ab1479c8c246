import { describe, expect, it } from 'vitest';
import { parseSearch } from './search.ts';

describe("the queue's search box", () => {
  it('maps author:, thread: and status: to filters and keeps the rest as words to search', () => {
    expect(parseSearch('author:usr_01ABC thread:https://blog.example.com/post?id=1 status:spam cheap pills')).toEqual({
      author: 'usr_01ABC',
      thread: 'https://blog.example.com/post?id=1',
      status: 'spam',
      q: 'cheap pills',
      problems: [],
    });
  });

  it('takes quoted values and quoted words', () => {
    expect(parseSearch('thread:"https://example.com/a b" "hello there"')).toEqual({ thread: 'https://example.com/a b', q: 'hello there', problems: [] });
  });

  it('says which operators it does not know, and does not search for them', () => {
    const parsed = parseSearch('site:abc status:nonsense words');
    expect(parsed.q).toBe('words');
    expect(parsed.status).toBeUndefined();
    expect(parsed.problems).toEqual(['site: is not an operator (author:, thread: and status: are)', 'status:nonsense is not a status (pending, flagged, spam, removed, published, deleted or all)']);
  });

  it('leaves an address typed as text alone', () => {
    expect(parseSearch('see https://example.com/x')).toEqual({ q: 'see https://example.com/x', problems: [] });
  });

  it('is empty for an empty box', () => {
    expect(parseSearch('   ')).toEqual({ problems: [] });
  });
});
