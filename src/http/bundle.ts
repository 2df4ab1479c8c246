import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { build, type BuildOptions } from 'esbuild';
import { messagesPlugin, WITHOUT_PARSER } from '../i18n/compile.ts';
import { matchesEtag } from './etag.ts';

/** A script or stylesheet built for browsers, kept in memory with its gzipped form and an ETag. */
export interface Bundle {
  code: Buffer;
  gzipped: Buffer;
  etag: string;
}

/**
 * The path of a browser entry file under src/, from a module that runs from src/<area>/ or, bundled,
 * from dist/parley.js (see scripts/build.js): `sourcePath(import.meta.url, 'widget/client/main.ts')`.
 */
export function sourcePath(moduleUrl: string, fromSrc: string): string {
  return fileURLToPath(new URL(moduleUrl.endsWith('.ts') ? `../${fromSrc}` : `../src/${fromSrc}`, moduleUrl));
}

/** Bundles one entry into one minified file for browsers (scripts: an IIFE, so no globals leak). */
export async function buildBundle(entry: string, options: BuildOptions = {}): Promise<Bundle> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
    plugins: [messagesPlugin],
    alias: WITHOUT_PARSER,
    ...options,
  });
  return asBundle(Buffer.from(result.outputFiles![0].contents));
}

/** A file for browsers as sendBundle serves it: with its gzipped form and an ETag of its content. */
export function asBundle(code: Buffer): Bundle {
  return { code, gzipped: gzipSync(code, { level: 9 }), etag: `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"` };
}

/** Built on first use and kept in memory for the life of the process (the sources do not change). */
export function builtOnce<B>(make: () => Promise<B>): () => Promise<B> {
  let cached: Promise<B> | null = null;
  return () => {
    cached ??= make().catch((error: unknown) => {
      cached = null;
      throw error;
    });
    return cached;
  };
}

/** Answers with a bundle: 304 for a matching If-None-Match, gzipped when the client takes it. */
export function sendBundle(request: FastifyRequest, reply: FastifyReply, bundle: Bundle, type: string): FastifyReply {
  reply.header('etag', bundle.etag).header('vary', 'Accept-Encoding').type(type);
  if (matchesEtag(request.headers['if-none-match'], bundle.etag)) return reply.code(304).send();
  if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) return reply.header('content-encoding', 'gzip').send(bundle.gzipped);
  return reply.send(bundle.code);
}
