import { PassThrough } from 'node:stream';

/**
 * One Server-Sent Events frame, rendered once and written to every reader of its thread. `seq` is
 * its number in the thread's sequence (sent as the `id:` field, which a reconnecting EventSource
 * returns as Last-Event-ID); null for a frame outside the sequence (coalesced counts, heartbeats).
 */
export interface Frame {
  seq: number | null;
  text: string;
  /** A moderation queue frame's event id (its `id:` field; queue frames have no `seq`). */
  eventId?: string;
}

export function frame(data: object, seq: number | null = null): Frame {
  return { seq, text: `${seq === null ? '' : `id: ${seq}\n`}data: ${JSON.stringify(data)}\n\n` };
}

/** A comment line: EventSource ignores it, but it keeps proxies and the socket from calling the stream idle. */
export const HEARTBEAT = ': ping\n\n';

/** A reader that does not take what is sent (a stalled connection) is dropped past this; it resumes with Last-Event-ID. */
const MAX_BUFFERED_BYTES = 256 * 1024;

/**
 * One open stream. Until it has caught up (replayed what it missed, or started at the thread's
 * latest event) the frames broadcast to its thread wait in `pending`; after, a frame it has already
 * had (by number, or for a frame outside the sequence such as counts, the same frame written while
 * catching up) is skipped, so a replay and a broadcast that overlap send nothing twice.
 */
export class Reader {
  readonly out = new PassThrough();
  readonly openedAt = Date.now();
  sent = 0;
  #ready = false;
  #pending: Frame[] = [];
  /** What was written while catching up: a broadcast of the same counts meanwhile says nothing new. */
  #written = new Set<string>();
  #closed = false;
  readonly #onClose: Array<() => void> = [];

  constructor(readonly ip: string, retryMs: number) {
    // How long EventSource waits before reconnecting; spread, so a restart is not met by every reader at once.
    this.out.write(`retry: ${retryMs}\n\n`);
  }

  get closed(): boolean {
    return this.#closed;
  }

  onClose(listener: () => void): void {
    this.#onClose.push(listener);
  }

  offer(item: Frame): void {
    if (this.#ready) this.#deliver(item);
    else this.#pending.push(item);
  }

  /** Caught up to `sent` (and, on a queue stream, past the events `replayed`): the frames that waited meanwhile follow. */
  catchUp(sent: number, replayed?: ReadonlySet<string>): void {
    this.sent = sent;
    this.#ready = true;
    const written = this.#written;
    this.#written = new Set();
    for (const item of this.#pending.splice(0)) {
      if (item.eventId !== undefined && replayed?.has(item.eventId)) continue;
      if (item.seq === null && written.has(item.text)) continue;
      this.#deliver(item);
    }
  }

  #deliver(item: Frame): void {
    if (item.seq !== null && item.seq <= this.sent) return;
    this.write(item.text);
    if (item.seq !== null) this.sent = item.seq;
  }

  write(text: string): void {
    if (this.#closed) return;
    if (this.out.writableLength > MAX_BUFFERED_BYTES) return this.close();
    if (!this.#ready) this.#written.add(text);
    this.out.write(text);
  }

  /** Ends the stream (idempotent); the client's EventSource reconnects by itself and resumes. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.out.end();
    for (const listener of this.#onClose) listener();
  }
}
