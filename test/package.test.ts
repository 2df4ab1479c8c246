import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

/** A project that installed Parley's packed tarball and its @parley/webhooks, as one installed from the registry would have them. */
const project = mkdtempSync(join(tmpdir(), 'parley-consumer-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the published package', () => {
  it('lets a plain Node project import parley/webhooks, with its types, and verify a signature', async () => {
    await run(process.execPath, ['scripts/build.js', 'webhooks']);
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', project]);
    const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    expect(packed.files.map((file) => file.path)).toEqual(expect.arrayContaining(['dist/webhooks.js', 'dist/webhooks.d.ts']));
    // The check itself comes from @parley/webhooks, Parley's dependency, packed from its workspace.
    const webhooks = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', project, '--workspace', 'packages/webhooks']);
    const [dependency] = JSON.parse(webhooks.stdout) as Array<{ filename: string }>;
    mkdirSync(join(project, 'node_modules', '@parley'), { recursive: true });
    await run('tar', ['-xzf', join(project, packed.filename), '-C', join(project, 'node_modules')]);
    renameSync(join(project, 'node_modules', 'package'), join(project, 'node_modules', 'parley'));
    await run('tar', ['-xzf', join(project, dependency.filename), '-C', join(project, 'node_modules')]);
    renameSync(join(project, 'node_modules', 'package'), join(project, 'node_modules', '@parley', 'webhooks'));

    const secret = 'whsec_dGhpcyBpcyBhIHRlc3Qgc2VjcmV0IG9mIDMyIGJ5dGVzIQ==';
    const body = '{"event":"comment.created","site_id":"site_1","timestamp":"2026-01-01T00:00:00Z","data":{}}';
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const script = `
      import { verifyWebhookSignature } from 'parley/webhooks';
      const { BODY, SECRET, SIGNATURE } = process.env;
      console.log(JSON.stringify([verifyWebhookSignature(Buffer.from(BODY), SECRET, SIGNATURE), verifyWebhookSignature(BODY + ' ', SECRET, SIGNATURE)]));`;
    // Plain Node: no tsx, nothing inherited from this test process's loaders.
    const { NODE_OPTIONS: _, ...env } = process.env;
    const verified = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env: { ...env, BODY: body, SECRET: secret, SIGNATURE: signature } });
    expect(JSON.parse(verified.stdout)).toEqual([true, false]);

    writeFileSync(
      join(project, 'receiver.mts'),
      `import { verifyWebhookSignature } from 'parley/webhooks';\nexport const ok: boolean = verifyWebhookSignature(Buffer.from('{}'), 'secret', undefined);\n`,
    );
    const tsc = resolve('node_modules/typescript/bin/tsc');
    const types = resolve('node_modules/@types');
    await run(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--typeRoots', types, '--types', 'node', 'receiver.mts'], { cwd: project });
  }, 120_000);
});
