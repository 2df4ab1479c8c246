import { Worker } from 'node:worker_threads';
import { buildBundle, sourcePath } from '../http/bundle.ts';
import { renderContent, type Formatting } from './html.ts';
import type { MentionNames } from './mentions.ts';
import type { RenderReply, RenderRequest } from './render-thread-entry.ts';

interface Waiting {
  resolve: (html: string) => void;
  reject: (error: Error) => void;
}

/** A fenced code block's opening: what highlight.js will be run on. */
const FENCE = /^ {0,3}(?:```|~~~)/m;

/**
 * Renders Markdown comments with code blocks on a thread of their own. On the event loop, such a
 * comment's rendering took about 220 µs of the 620 µs its creation cost in all (highlight.js most of
 * it), where the same text as plain text took 400 µs; on the thread the loop only sends the text and
 * takes the HTML back. Other texts render on the loop: a message to the thread and back costs more
 * than they do. The thread's script is bundled when it starts (Node runs a thread's script outside
 * tsx and the bundle); until it runs, or if it stops, every comment renders on the loop.
 */
class RenderThread {
  #thread: Worker | null = null;
  #starting: Promise<void> | null = null;
  readonly #waiting = new Map<number, Waiting>();
  #next = 0;

  render(source: string, formatting: Formatting, names: MentionNames): Promise<string> {
    // Highlighting is what costs; anything else renders faster than a message goes to the thread and back.
    if (formatting === 'plain' || !FENCE.test(source)) return Promise.resolve(renderContent(source, formatting, names));
    this.#starting ??= this.#start();
    const thread = this.#thread;
    if (thread === null) return Promise.resolve(renderContent(source, formatting, names));
    return new Promise((resolve, reject) => {
      const id = this.#next++;
      // Held while something waits on it: a script that awaits a render must not exit under it.
      if (this.#waiting.size === 0) thread.ref();
      this.#waiting.set(id, { resolve, reject });
      thread.postMessage({ id, source, formatting, names: [...names] } satisfies RenderRequest);
    });
  }

  async #start(): Promise<void> {
    try {
      const script = await buildBundle(sourcePath(import.meta.url, 'formatting/render-thread-entry.ts'), { platform: 'node', format: 'cjs', target: ['node20'] });
      const thread = new Worker(script.code.toString(), { eval: true });
      // Unreferenced while nothing waits on it (see render), once it runs: Node keeps a thread
      // unreferenced before it is online alive all the same.
      thread.once('online', () => {
        if (this.#waiting.size === 0) thread.unref();
      });
      thread.on('message', (reply: RenderReply) => this.#answer(reply));
      thread.on('error', (error) => this.#stop(thread, error));
      thread.on('exit', () => this.#stop(thread, new Error('the render thread exited')));
      this.#thread = thread;
    } catch (error) {
      process.emitWarning(`Comments render on the event loop: the render thread did not start (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  #answer(reply: RenderReply): void {
    const waiting = this.#waiting.get(reply.id);
    if (!waiting) return;
    this.#waiting.delete(reply.id);
    if (this.#waiting.size === 0) this.#thread?.unref();
    if ('html' in reply) waiting.resolve(reply.html);
    else waiting.reject(new Error(`rendering a comment failed: ${reply.error}`));
  }

  /** What waited on a thread that stopped fails; later comments render on the event loop. */
  #stop(thread: Worker, error: Error): void {
    if (this.#thread !== thread) return;
    this.#thread = null;
    process.emitWarning(`Comments render on the event loop: ${error.message}`);
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
  }
}

const thread = new RenderThread();

/** A comment's HTML, rendered off the event loop (see RenderThread). */
export function renderOffLoop(source: string, formatting: Formatting, names: MentionNames): Promise<string> {
  return thread.render(source, formatting, names);
}
