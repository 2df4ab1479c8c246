// Bundles the server's TypeScript into dist/parley.js, which bin/parley.js runs when it is newer than
// every source file: plain JavaScript starts without tsx's compiler in the process (about 70 MB less
// resident memory). Dependencies stay in node_modules. Runs on `npm install` (the `prepare` script).
import { copyFileSync } from 'node:fs';
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/parley.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});

// Node loads a worker thread's script from its own file: it sits beside the bundle, as in src/db.
copyFileSync('src/db/checkpoint-thread.js', 'dist/checkpoint-thread.js');
