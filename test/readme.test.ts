import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, type FreshDatabase } from './helper.ts';

const run = promisify(execFile);

/** The README's API examples, run as a newcomer would: against a fresh `parley serve`, in order. */
const readme = readFileSync('README.md', 'utf8');
const apiSection = readme.slice(readme.indexOf('## The API'), readme.indexOf('### Rules worth knowing'));
const blocks = [...apiSection.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);

let database: FreshDatabase;
let server: ChildProcess;
let exports = '';

beforeAll(async () => {
  database = await freshDatabaseUrl();
  server = spawn('node', ['bin/parley.js', 'serve'], {
    env: { ...process.env, DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'warn' },
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 20_000);
    server.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('PARLEY_KEY=')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  exports = output.split('\n').filter((line) => line.trim().startsWith('export ')).join('\n');
});

afterAll(async () => {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  await database.drop();
});

describe('the README', () => {
  it('has curl examples for the API', () => {
    expect(blocks.length).toBeGreaterThan(3);
    expect(exports.split('\n')).toHaveLength(3);
  });

  it('runs every API example verbatim against a fresh server, each request succeeding', async () => {
    // curl is made to fail on an HTTP error so that a wrong example fails this test.
    const script = ['set -euo pipefail', exports, 'curl() { command curl --fail-with-body "$@"; }', ...blocks].join('\n');
    const { stdout } = await run('bash', ['-c', script], { timeout: 60_000 });
    expect(stdout).toContain('"content":"First! (edited)"');
    expect(stdout).toContain('"ban_type":"shadow_ban"');
  });
});
