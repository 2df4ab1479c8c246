// The render thread's script (render-thread.ts bundles it when the thread starts): renders what the
// event loop sends, one message at a time.
import { parentPort } from 'node:worker_threads';
import { renderContent, type Formatting } from './html.ts';

export interface RenderRequest {
  id: number;
  source: string;
  formatting: Formatting;
  names: Array<[string, string]>;
}

export type RenderReply = { id: number; html: string } | { id: number; error: string };

parentPort!.on('message', ({ id, source, formatting, names }: RenderRequest) => {
  try {
    parentPort!.postMessage({ id, html: renderContent(source, formatting, new Map(names)) } satisfies RenderReply);
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies RenderReply);
  }
});
