/**
 * Each package as a site's project gets it: packed (`npm pack`), installed into an empty project
 * (frameworks from the npm cache the repository's own install filled), then used from plain Node,
 * with no tsx or loader of this repository. Says how long each install took and what it brought.
 */
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../test/helper.ts';

const run = promisify(execFile);
const PACKAGES = ['webhooks', 'client', 'embed', 'react', 'vue', 'svelte'];
const SKIP_REASON = process.env.PARLEY_TEST_DATABASE_URL ? 'SQLite pass only: packing and installing do not depend on the database' : null;
/** The issue's "installs in seconds", with room for a busy machine. */
const INSTALL_BUDGET_MS = 30_000;

let work: string;
const tarballs: Record<string, string> = {};

/** Plain Node: nothing inherited from this test process's loaders. */
const { NODE_OPTIONS: _, ...plainEnv } = process.env;

interface Installed {
  dir: string;
  ms: number;
  packages: number;
  bytes: number;
}

/** An empty project that installed these tarballs and registry packages, with what it took. */
async function install(label: string, specs: string[]): Promise<Installed> {
  const dir = mkdtempSync(join(work, `${label}-`));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-of-${label}`, private: true, type: 'module' }));
  const started = performance.now();
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...specs], { cwd: dir, env: plainEnv });
  const ms = performance.now() - started;
  const modules = join(dir, 'node_modules');
  const installed = { dir, ms, packages: countPackages(modules), bytes: sizeOf(modules) };
  console.log(`${label}: installs in ${(ms / 1000).toFixed(1)} s, ${installed.packages} packages, ${(installed.bytes / 1024).toFixed(0)} KB`);
  return installed;
}

function countPackages(modules: string): number {
  let count = 0;
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    count += entry.startsWith('@') ? readdirSync(join(modules, entry)).length : 1;
  }
  return count;
}

function sizeOf(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + sizeOf(join(path, entry)), 0);
}

async function node(dir: string, script: string, env: Record<string, string> = {}): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, env: { ...plainEnv, ...env } });
  return JSON.parse(stdout);
}

/** `types`: the @types packages of this repository the file needs (Node's for Buffer); the project has none of its own. */
async function typecheck(dir: string, file: string, code: string, types: string[] = []): Promise<void> {
  writeFileSync(join(dir, file), code);
  const tsc = resolve('node_modules/typescript/bin/tsc');
  const options = ['--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--lib', 'es2022,dom'];
  const typeRoots = types.length > 0 ? ['--typeRoots', resolve('node_modules/@types'), '--types', types.join(',')] : [];
  await run(process.execPath, [tsc, ...options, ...typeRoots, file], { cwd: dir });
}

describe.skipIf(SKIP_REASON !== null)(`the packages, packed and installed into an empty project${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  let parley: TestParley;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'parley-packages-'));
    const [{ stdout }, started] = await Promise.all([
      run('npm', ['pack', '--json', '--pack-destination', work, ...PACKAGES.flatMap((name) => ['--workspace', `packages/${name}`])]),
      startParley(),
    ]);
    parley = started;
    for (const packed of JSON.parse(stdout) as Array<{ name: string; filename: string }>) tarballs[packed.name] = join(work, packed.filename);
    expect(Object.keys(tarballs).sort()).toEqual(PACKAGES.map((name) => `@parley/${name}`).sort());
  }, 60_000);

  afterAll(async () => {
    await parley?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('@parley/webhooks installs alone and checks a signature in Node and over Web Crypto, with its types', async () => {
    const { dir, ms, packages } = await install('webhooks', [tarballs['@parley/webhooks']]);
    expect(packages).toBe(1);
    expect(ms).toBeLessThan(INSTALL_BUDGET_MS);
    const secret = 'whsec_dGhpcyBpcyBhIHRlc3Qgc2VjcmV0IG9mIDMyIGJ5dGVzIQ==';
    const body = '{"event":"comment.created","site_id":"site_1","timestamp":"2026-01-01T00:00:00Z","data":{}}';
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const checked = await node(
      dir,
      `import * as node from '@parley/webhooks';
       import * as web from '@parley/webhooks/web';
       const { BODY, SECRET, SIGNATURE } = process.env;
       console.log(JSON.stringify({
         node: [node.verifyWebhookSignature(Buffer.from(BODY), SECRET, SIGNATURE), node.verifyWebhookSignature(BODY + ' ', SECRET, SIGNATURE), node.verifyWebhookSignature(BODY, SECRET, undefined)],
         web: [await web.verifyWebhookSignature(BODY, SECRET, SIGNATURE), await web.verifyWebhookSignature(new TextEncoder().encode(BODY + ' '), SECRET, SIGNATURE), await web.verifyWebhookSignature(BODY, SECRET, SIGNATURE.slice(0, -1)), await web.verifyWebhookSignature(BODY, 'other', SIGNATURE)],
         same: node.signatureOf(BODY, SECRET) === await web.signatureOf(BODY, SECRET),
       }));`,
      { BODY: body, SECRET: secret, SIGNATURE: signature },
    );
    expect(checked).toEqual({ node: [true, false, false], web: [true, false, false, false], same: true });
    await typecheck(
      dir,
      'receiver.mts',
      `import { verifyWebhookSignature } from '@parley/webhooks';\nimport * as web from '@parley/webhooks/web';\nexport const ok: boolean = verifyWebhookSignature(Buffer.from('{}'), 'secret', undefined);\nexport const later: Promise<boolean> = web.verifyWebhookSignature('{}', 'secret', null);\n`,
      ['node'],
    );
  }, 60_000);

  it('@parley/client installs with openapi-fetch alone and reads and writes a thread of a real Parley, typed', async () => {
    const { dir, ms, packages } = await install('client', [tarballs['@parley/client']]);
    expect(ms).toBeLessThan(INSTALL_BUDGET_MS);
    expect(packages).toBe(3); // @parley/client, openapi-fetch, openapi-typescript-helpers
    const site = await parley.newSite();
    const answered = await node(
      dir,
      `import { createParleyClient } from '@parley/client';
       const { BASE, KEY, SITE } = process.env;
       const thread_url = 'https://blog.example.com/posts/client';
       const site = createParleyClient({ baseUrl: BASE + '/', apiKey: KEY });
       const posted = await site.POST('/v1/comments', { body: { site_id: SITE, thread_url, content: 'Written through @parley/client', author_name: 'Script' } });
       const reader = createParleyClient({ baseUrl: BASE });
       const listed = await reader.GET('/v1/comments', { params: { query: { site_id: SITE, thread_url } } });
       const refused = await createParleyClient({ baseUrl: BASE, apiKey: 'not-a-key' }).GET('/v1/comments', { params: { query: { site_id: SITE, thread_url } } });
       console.log(JSON.stringify({ posted: posted.response.status, texts: listed.data.comments.map((c) => c.content), refused: [refused.response.status, refused.error?.code] }));`,
      { BASE: parley.url, KEY: site.api_key, SITE: site.site_id },
    );
    expect(answered).toEqual({ posted: 201, texts: ['Written through @parley/client'], refused: [401, expect.any(String)] });
    await typecheck(
      dir,
      'reader.mts',
      `import { createParleyClient, type Problem } from '@parley/client';\nconst client = createParleyClient({ baseUrl: 'https://comments.example.com' });\nconst { data, error } = await client.GET('/v1/comments', { params: { query: { site_id: 's', thread_url: 'u' } } });\nexport const texts: Array<string | null> | undefined = data?.comments.map((comment) => comment.content);\nexport const problem: Problem | undefined = error;\n`,
    );
  }, 60_000);

  it('@parley/react installs beside React and renders the elements on the server', async () => {
    const { dir, ms } = await install('react', [tarballs['@parley/embed'], tarballs['@parley/react'], 'react@19', 'react-dom@19']);
    expect(ms).toBeLessThan(INSTALL_BUDGET_MS);
    const html = await node(
      dir,
      `import { createElement, Fragment } from 'react';
       import { renderToString } from 'react-dom/server';
       import { ParleyComments, ParleyCount } from '@parley/react';
       console.log(JSON.stringify(renderToString(createElement(Fragment, null,
         createElement(ParleyCount, { server: 'https://c.example', siteId: 's', threadUrl: 'https://blog.example/a' }),
         createElement(ParleyComments, { server: 'https://c.example', siteId: 's', threadUrl: 'https://blog.example/a', theme: 'dark' })))));`,
    );
    expect(html).toBe('<parley-count site-id="s" thread-url="https://blog.example/a"></parley-count><parley-comments site-id="s" thread-url="https://blog.example/a" theme="dark"></parley-comments>');
  }, 60_000);

  it('@parley/vue installs beside Vue and renders the elements on the server', async () => {
    const { dir, ms } = await install('vue', [tarballs['@parley/embed'], tarballs['@parley/vue'], 'vue@3']);
    expect(ms).toBeLessThan(INSTALL_BUDGET_MS);
    const html = await node(
      dir,
      `import { createSSRApp, h } from 'vue';
       import { renderToString } from 'vue/server-renderer';
       import { ParleyComments, ParleyCount } from '@parley/vue';
       const app = createSSRApp({ render: () => [
         h(ParleyCount, { server: 'https://c.example', siteId: 's', threadUrl: 'https://blog.example/a' }),
         h(ParleyComments, { server: 'https://c.example', siteId: 's', lang: 'de' }),
       ] });
       console.log(JSON.stringify(await renderToString(app)));`,
    );
    expect(html).toBe('<!--[--><parley-count site-id="s" thread-url="https://blog.example/a"></parley-count><parley-comments site-id="s" lang="de"></parley-comments><!--]-->');
  }, 60_000);

  it('@parley/svelte installs beside Svelte with its components as source, for the app’s own Svelte to compile', async () => {
    const { dir, ms } = await install('svelte', [tarballs['@parley/embed'], tarballs['@parley/svelte'], 'svelte@5']);
    expect(ms).toBeLessThan(INSTALL_BUDGET_MS);
    const compiled = await node(
      dir,
      `import { readFileSync } from 'node:fs';
       import { compile } from 'svelte/compiler';
       const source = readFileSync('node_modules/@parley/svelte/ParleyComments.svelte', 'utf8');
       console.log(JSON.stringify(compile(source, { generate: 'server' }).warnings.map((w) => w.code)));`,
    );
    expect(compiled).toEqual([]);
  }, 60_000);
});
