// Bundles the server's TypeScript into dist/parley.js, which bin/parley.js runs when it is newer than
// every source file: plain JavaScript starts without tsx's compiler in the process (about 70 MB less
// resident memory). Dependencies stay in node_modules. Runs on `npm install` (the `prepare` script).
//
// `parley/webhooks` stays importable for receivers written against it: it re-exports the receiver's
// check from @parley/webhooks (packages/webhooks), the one copy the server signs with too.
// `node scripts/build.js webhooks` writes that alone, leaving the server's bundle, which running
// servers may be loading, untouched.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' };

if (process.argv[2] !== 'webhooks') {
  await build({ ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/parley.js', sourcemap: 'linked' });
  escapeWideCharacters('dist/parley.js');
  // Node loads a worker thread's script from its own file: it sits beside the bundle, as in src/db.
  copyFileSync('src/db/checkpoint-thread.js', 'dist/checkpoint-thread.js');
}

mkdirSync('dist', { recursive: true });
for (const file of ['dist/webhooks.js', 'dist/webhooks.d.ts']) writeFileSync(file, "export * from '@parley/webhooks';\n");

/**
 * V8 keeps a module's source text for as long as the process runs, at one byte a character only
 * when every character fits in one (Latin-1): esbuild leaves comments and regular expressions as
 * written, and two "…" among them made the server's bundle of 600 KB take 1.2 MB. Escaped, they
 * mean the same to JavaScript (a source map column moves on those lines only).
 */
function escapeWideCharacters(file) {
  const code = readFileSync(file, 'utf8');
  writeFileSync(file, code.replace(/[^\x00-\xff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
