import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, type FreshDatabase } from './helper.ts';

const run = promisify(execFile);

/**
 * The README's API examples, then its staff examples ("Running a community"), run as a newcomer
 * would: against a fresh `parley serve`, in order.
 */
const readme = readFileSync('README.md', 'utf8');
const section = (from: string, to: string) => readme.slice(readme.indexOf(from), readme.indexOf(to));
const shellBlocks = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
const blocks = shellBlocks(section('## The API', '### Rules worth knowing'));
const staffBlocks = shellBlocks(section('## Running a community', '## Webhooks'));

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
    expect(staffBlocks.length).toBeGreaterThan(3);
    // PARLEY_URL, SITE_ID, PARLEY_KEY and PARLEY_SETUP_LINK.
    expect(exports.split('\n')).toHaveLength(4);
  });

  it('runs every API example verbatim against a fresh server, each request succeeding', async () => {
    // curl is made to fail on an HTTP error so that a wrong example fails this test.
    const script = ['set -euo pipefail', exports, 'curl() { command curl --fail-with-body "$@"; }', ...blocks, ...staffBlocks].join('\n');
    const { stdout } = await run('bash', ['-c', script], { timeout: 90_000 });
    expect(stdout).toContain('"content":"First! (edited)"');
    expect(stdout).toContain('"ban_type":"shadow_ban"');
    expect(stdout).toContain('"membership":{"account_id":"acct_');
    expect(stdout).toContain('"name":"Our blog"');
    expect(stdout).toMatch(/"email":"mo@example.com","name":"Mo","role":"moderator","site_ids":null/);
    expect(stdout).toContain('{"ended_sessions":0}');
    expect(stdout).toContain('"action":"member.removed"');
  }, 120_000);
});
