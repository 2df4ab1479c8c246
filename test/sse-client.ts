/** One Server-Sent Events message as a browser's EventSource would see it. */
export interface SseMessage {
  id: string | null;
  data: any;
}

/**
 * A minimal EventSource for tests and the bench: GETs a stream over real HTTP and parses its
 * messages, so each one can be awaited.
 */
export class SseClient {
  readonly messages: SseMessage[] = [];
  status = 0;
  headers = new Headers();
  ended = false;
  #abort = new AbortController();
  #waiters: Array<() => void> = [];

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    const response = await fetch(url, { headers, signal: client.#abort.signal });
    client.status = response.status;
    client.headers = response.headers;
    if (response.status !== 200) {
      client.messages.push({ id: null, data: await response.json() });
      client.ended = true;
      return client;
    }
    void client.#read(response.body!);
    return client;
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      const reader = body.getReader();
      for (;;) {
        const { value: chunk, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n');
          const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
          if (data.length === 0) continue;
          const id = lines.find((l) => l.startsWith('id: '))?.slice(4) ?? null;
          this.messages.push({ id, data: JSON.parse(data.join('\n')) });
          this.#waiters.splice(0).forEach((wake) => wake());
        }
      }
    } catch {
      // aborted
    }
    this.ended = true;
    this.#waiters.splice(0).forEach((wake) => wake());
  }

  /** The id of the last message that had one: what EventSource sends back as Last-Event-ID. */
  get lastEventId(): string | null {
    return this.messages.findLast((m) => m.id !== null)?.id ?? null;
  }

  /** Messages of these types (ready, reset and the comment events). */
  of(...types: string[]): SseMessage[] {
    return this.messages.filter((m) => types.includes(m.data.type));
  }

  /** Waits until `done` holds (checked on every message), failing after `ms`. */
  async until(done: (client: SseClient) => boolean, ms = 3000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done(this)) {
      if (this.ended) throw new Error(`stream ended; got ${JSON.stringify(this.messages.map((m) => m.data.type))}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; got ${JSON.stringify(this.messages.map((m) => m.data.type))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
  }

  close(): void {
    this.#abort.abort();
  }
}
