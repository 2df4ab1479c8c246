import { describe, expect, it } from 'vitest';
import { frame, Reader } from './reader.ts';

const received = (reader: Reader) => String(reader.out.read() ?? '');

describe('a stream catching up', () => {
  it('sends counts once when a broadcast meanwhile repeats what its replay wrote, and counts that changed', () => {
    const reader = new Reader('127.0.0.1', 1000);
    const counts = (upvotes: number) => frame({ type: 'comment.counts', comment_id: 'cmt_1', upvotes, downvotes: 0, reaction_counts: {} });
    reader.offer(counts(2));
    reader.write(counts(2).text);
    reader.offer(counts(3));
    reader.catchUp(0);
    const text = received(reader);
    expect(text.match(/"upvotes":2/g)).toHaveLength(1);
    expect(text.match(/"upvotes":3/g)).toHaveLength(1);
    // Once caught up, the stream sends whatever its feed broadcasts.
    reader.offer(counts(2));
    expect(received(reader).match(/"upvotes":2/g)).toHaveLength(1);
  });
});
