import type { Markable } from './repository.ts';

/** A comment of a serialised subtree: where its marks stand, who wrote it, what a reader may have marked. */
export interface ShownComment extends Markable {
  /** Byte offset of its `"user_vote":null,…` marks in the bytes it was serialised in. */
  at: number;
  authorRef: string | null;
}

/** A top-level comment with its replies as the public's list shows them, serialised. */
export interface Subtree {
  /** The top-level comment's `subtree_revision` when its rows were read. */
  revision: number;
  /** Empty for a deleted comment with no reply left to show (the list leaves it out). */
  body: Buffer;
  /** A digest of `body`, from which a list's entity tag is derived. */
  digest: string;
  /** Its comments in the order they were serialised (pre-order). */
  comments: ShownComment[];
}

/** What an entry holds besides its bytes, per comment (measured: about 220 bytes of heap), rounded up. */
const BYTES_PER_COMMENT = 256;

/**
 * Serialised subtrees of the public's lists, by top-level comment, least recently used dropped past
 * `maxBytes`. An entry is only used while its revision is the one the database reports for that
 * comment, read by the same request: the triggers of migration 0007 move the revision with every
 * write to the subtree, on whichever instance it happens, so this cache needs no invalidation and
 * is exact without Redis. A write makes the next read rebuild only the subtree it touched.
 */
export class SubtreeCache {
  readonly #entries = new Map<string, Subtree & { size: number }>();
  #bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(rootId: string, revision: number): Subtree | undefined {
    const entry = this.#entries.get(rootId);
    if (entry?.revision !== revision) return undefined;
    this.#entries.delete(rootId);
    this.#entries.set(rootId, entry);
    return entry;
  }

  set(rootId: string, subtree: Subtree): void {
    const size = subtree.body.length + subtree.comments.length * BYTES_PER_COMMENT;
    if (size > this.maxBytes) return;
    this.#remove(rootId);
    this.#entries.set(rootId, { ...subtree, size });
    this.#bytes += size;
    while (this.#bytes > this.maxBytes) this.#remove(this.#entries.keys().next().value!);
  }

  #remove(rootId: string): void {
    const entry = this.#entries.get(rootId);
    if (!entry) return;
    this.#entries.delete(rootId);
    this.#bytes -= entry.size;
  }
}
