import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export interface Bundle {
  code: Buffer;
  gzipped: Buffer;
  etag: string;
}

// This module runs from src/widget/ or, bundled, from dist/parley.js (see scripts/build.js).
const ENTRY = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './client/main.ts' : '../src/widget/client/main.ts', import.meta.url));

/** Bundles the widget into one minified script (an IIFE: no globals but the custom element). */
export async function buildWidget(): Promise<Bundle> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const code = Buffer.from(result.outputFiles[0].contents);
  return { code, gzipped: gzipSync(code, { level: 9 }), etag: `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"` };
}

let cached: Promise<Bundle> | null = null;

/** Built on first use and kept in memory for the life of the process (the sources do not change). */
export function widgetBundle(): Promise<Bundle> {
  cached ??= buildWidget().catch((error: unknown) => {
    cached = null;
    throw error;
  });
  return cached;
}
