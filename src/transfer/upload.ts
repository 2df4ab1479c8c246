import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { AppError } from '../errors.ts';

/** An uploaded file in a private temporary directory, removed by `dispose` once the import is done with it. */
export interface Upload {
  path: string;
  bytes: number;
  dispose(): Promise<void>;
}

function tooLarge(maxBytes: number): AppError {
  return new AppError('payload_too_large', `An import file may be at most ${maxBytes} bytes (PARLEY_IMPORT_MAX_SIZE); import a larger one with the CLI on the server: parley import`);
}

/**
 * Writes a request body to a temporary file as it arrives, never holding it whole in memory. A body
 * that declares, or turns out to have, more than `maxBytes` is refused (413) as soon as that shows,
 * and what came of it is removed; the rest of the body is left to the HTTP server to discard, so
 * the connection stays able to carry the answer.
 */
export async function receiveUpload(body: Readable, declaredLength: string | undefined, maxBytes: number): Promise<Upload> {
  if (declaredLength !== undefined && Number(declaredLength) > maxBytes) throw tooLarge(maxBytes);
  const dir = await mkdtemp(join(tmpdir(), 'parley-upload-'));
  const dispose = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'upload');
  const file = createWriteStream(path);
  let bytes = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const stop = (error: Error) => {
        body.off('data', onData);
        body.resume();
        file.destroy();
        reject(error);
      };
      const onData = (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > maxBytes) return stop(tooLarge(maxBytes));
        if (!file.write(chunk)) {
          body.pause();
          file.once('drain', () => body.resume());
        }
      };
      body.on('data', onData);
      body.once('end', () => file.end(() => resolve()));
      body.once('error', () => stop(new AppError('malformed_request', 'The upload broke off before its end')));
      file.once('error', (error) => stop(error));
    });
  } catch (error) {
    await dispose();
    throw error;
  }
  return { path, bytes, dispose };
}
