import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { ImportFileError, type Format } from './source.ts';

/** A gzip file may grow this many times when unpacked, past the first 64 MiB: more is a "gzip bomb". */
export const MAX_GZIP_RATIO = 200;
const RATIO_FREE_BYTES = 64 << 20;

async function headOf(path: string, bytes: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Stops a gzip stream that unpacks to more than MAX_GZIP_RATIO times what it read. */
function guardedGunzip(path: string): AsyncIterable<Buffer> {
  let packed = 0;
  let unpacked = 0;
  const file = createReadStream(path);
  file.on('data', (chunk) => (packed += chunk.length));
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      unpacked += chunk.length;
      if (unpacked > RATIO_FREE_BYTES && unpacked > packed * MAX_GZIP_RATIO) {
        done(new ImportFileError(`the file unpacks to more than ${MAX_GZIP_RATIO} times its size and is refused (a gzip bomb?)`));
      } else done(null, chunk);
    },
  });
  const gunzip = createGunzip();
  gunzip.on('error', (error) => guard.destroy(new ImportFileError(`the gzip data is damaged: ${error.message}`)));
  return file.pipe(gunzip).pipe(guard);
}

/** The file's bytes, unpacked when gzipped. */
export async function* bytesOf(path: string): AsyncIterable<Buffer> {
  const head = await headOf(path, 2);
  yield* head[0] === 0x1f && head[1] === 0x8b ? guardedGunzip(path) : createReadStream(path);
}

/** The file's text (UTF-8, a leading byte order mark dropped), in chunks. */
export async function* textOf(path: string): AsyncIterable<string> {
  const decoder = new StringDecoder('utf8');
  let first = true;
  for await (const chunk of bytesOf(path)) {
    let text = decoder.write(chunk);
    if (first && text.length > 0) {
      text = text.replace(/^\uFEFF/, '');
      first = false;
    }
    if (text) yield text;
  }
  const rest = decoder.end();
  if (rest) yield rest;
}

/** Lines of the file's text, numbered from 1; a line longer than `maxLine` characters stops it. */
export async function* linesOf(path: string, maxLine: number): AsyncIterable<{ line: string; number: number }> {
  let pending = '';
  let number = 0;
  for await (const chunk of textOf(path)) {
    pending += chunk;
    let newline = pending.indexOf('\n');
    let start = 0;
    while (newline !== -1) {
      yield { line: pending.slice(start, newline), number: ++number };
      start = newline + 1;
      newline = pending.indexOf('\n', start);
    }
    pending = pending.slice(start);
    if (pending.length > maxLine) throw new ImportFileError(`line ${number + 1}: longer than ${maxLine} characters`);
  }
  if (pending.trim() !== '') yield { line: pending, number: ++number };
}

/** Which format a file is in, from its first bytes (unpacked when gzipped). */
export async function detectFormat(path: string): Promise<Format> {
  const raw = await headOf(path, 16);
  if (raw.subarray(0, 16).toString('latin1') === 'SQLite format 3\u0000') return 'isso';
  let head = '';
  for await (const chunk of textOf(path)) {
    head += chunk;
    if (head.length >= 8192) break;
  }
  const start = head.trimStart();
  if (start.startsWith('<')) {
    if (/<disqus[\s>]/.test(head)) return 'disqus';
    if (/<rss[\s>]/.test(head) && /wordpress\.org\/export\//.test(head)) return 'wxr';
  }
  if (start.startsWith('{')) {
    const firstLine = start.slice(0, start.indexOf('\n') === -1 ? undefined : start.indexOf('\n'));
    if (/"format"\s*:\s*"parley"/.test(firstLine)) return 'parley';
    if (/"commentHex"|"commenters"/.test(head) && !/"locator"/.test(firstLine)) return 'commento';
    if (/"locator"|^\{\s*"version"\s*:\s*\d+\s*,\s*"users"/.test(firstLine)) return 'remark42';
  }
  throw new ImportFileError('the format could not be recognised; name it with --format (disqus, wxr, remark42, commento, isso, parley)');
}
