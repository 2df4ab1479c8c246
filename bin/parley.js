#!/usr/bin/env node
// Runs the prebuilt bundle (dist/parley.js, built by `npm install` or `npm run build`) when it is
// newer than every source file: plain JavaScript keeps tsx's compiler out of the process, about
// 35 MB less resident memory. Otherwise (no bundle, or sources edited since) runs the TypeScript
// sources directly through tsx, so a checkout never runs stale code.
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../dist/parley.js', import.meta.url));
const sources = fileURLToPath(new URL('../src', import.meta.url));

function bundleModifiedMs() {
  try {
    return statSync(bundle).mtimeMs;
  } catch {
    return -1;
  }
}

function newestModifiedMs(dir) {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestModifiedMs(path) : statSync(path).mtimeMs);
  }
  return newest;
}

if (bundleModifiedMs() > newestModifiedMs(sources)) {
  await import(bundle);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
