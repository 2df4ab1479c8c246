// Bundles the server's TypeScript into dist/parley.js, which bin/parley.js runs when it is newer than
// every source file: plain JavaScript starts without tsx's compiler in the process (about 70 MB less
// resident memory). Dependencies stay in node_modules. Runs on `npm install` (the `prepare` script).
//
// Also builds `parley/webhooks` (dist/webhooks.js and .d.ts), the receiver's signature check for
// other projects: Node does not load TypeScript from a dependency. `node scripts/build.js webhooks`
// builds that alone, leaving the server's bundle, which running servers may be loading, untouched.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' };

if (process.argv[2] !== 'webhooks') {
  await build({ ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/parley.js', sourcemap: 'linked' });
  escapeWideCharacters('dist/parley.js');
  // Node loads a worker thread's script from its own file: it sits beside the bundle, as in src/db.
  copyFileSync('src/db/checkpoint-thread.js', 'dist/checkpoint-thread.js');
}

const WEBHOOKS = 'src/webhooks/verify.ts';
await build({ ...common, entryPoints: [WEBHOOKS], outfile: 'dist/webhooks.js' });
await writeDeclarations(WEBHOOKS, 'dist/webhooks.d.ts');

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

/** The declarations of `entry` alone, as `tsc --declaration --emitDeclarationOnly` writes them. */
async function writeDeclarations(entry, outfile) {
  let ts;
  try {
    ts = (await import('typescript')).default;
  } catch {
    // TypeScript is a development dependency: an install without those needs no declarations.
    console.warn(`build: TypeScript is not installed, so ${outfile} is not written`);
    return;
  }
  const program = ts.createProgram([entry], {
    declaration: true,
    emitDeclarationOnly: true,
    allowImportingTsExtensions: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    types: ['node'],
  });
  const { diagnostics } = program.emit(program.getSourceFile(entry), (_name, text) => writeFileSync(outfile, text));
  if (diagnostics.length > 0) {
    throw new Error(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (name) => name, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\n' }));
  }
}
