import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readyAt } from '../../test/hardening/child-server.ts';
import { pageUrl } from '../../test/helper.ts';
import { startReceiver, subscribe, waitForLog, type Receiver } from '../../test/receiver.ts';

const run = promisify(execFile);

/** `parley serve` as its own process, so it can be killed outright. */
interface Server {
  child: ChildProcess;
  request<T = any>(method: string, path: string, options?: { body?: unknown; token?: string }): Promise<{ status: number; body: T }>;
  exited: Promise<number | null>;
}

let dir: string;
let env: Record<string, string>;
const children: ChildProcess[] = [];
const receivers: Receiver[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-crash-'));
  env = {
    DATABASE_URL: `sqlite:${join(dir, 'parley.db')}`,
    PORT: '0',
    LOG_LEVEL: 'info',
    PARLEY_WEBHOOK_ALLOW_PRIVATE: 'true',
    PARLEY_WEBHOOK_TIMEOUT: '1s',
  };
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...args: string[]) {
  const { stdout } = await run(process.execPath, ['bin/parley.js', ...args], { env: { ...process.env, ...env } });
  return JSON.parse(stdout);
}

async function serve(extra: Record<string, string> = {}): Promise<Server> {
  const child = spawn(process.execPath, ['bin/parley.js', 'serve'], { env: { ...process.env, ...env, ...extra }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`parley serve exited with ${code}: ${output}`)));
  });
  await readyAt(base);
  return {
    child,
    exited,
    async request(method, path, options = {}) {
      const response = await fetch(base + path, {
        method,
        headers: { ...(options.token && { authorization: `Bearer ${options.token}` }), ...(options.body !== undefined && { 'content-type': 'application/json' }) },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      return { status: response.status, body: (await response.json()) as any };
    },
  };
}

async function kill(server: Server) {
  server.child.kill('SIGKILL');
  await server.exited;
}

describe('crash safety', () => {
  it('delivers an acknowledged comment after a SIGKILL that came before its delivery', async () => {
    let phase = 1;
    const receiver = await startReceiver(() => (phase === 1 ? 'hang' : 200));
    receivers.push(receiver);
    const site = await cli('bootstrap', '--site-name', 'Crash', '--plan', 'publisher', '--json');
    const first = await serve();
    await subscribe(first, site, receiver.url, ['comment.created']);
    const created = await first.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'survive' } });
    expect(created.status).toBe(201);
    const [unanswered] = await receiver.waitFor(1);
    await kill(first);

    phase = 2;
    const second = await serve();
    const [, delivered] = await receiver.waitFor(2, 20_000);
    expect(delivered.headers['x-service-delivery']).toBe(unanswered.headers['x-service-delivery']);
    expect(delivered.body.data.comment.id).toBe(created.body.id);
    const [logged] = await waitForLog(second, site, (d) => d[0]?.state === 'succeeded');
    expect(logged.attempts.map((a: any) => a.status_code)).toEqual([200]);

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 60_000);

  it('resumes the retry schedule after a SIGKILL between attempts', async () => {
    let phase = 1;
    const receiver = await startReceiver(() => (phase === 1 ? 500 : 200));
    receivers.push(receiver);
    env.PARLEY_WEBHOOK_RETRY_DELAYS = '3s,3s,3s';
    const site = await cli('bootstrap', '--site-name', 'Crash', '--plan', 'publisher', '--json');
    const first = await serve();
    await subscribe(first, site, receiver.url, ['comment.created']);
    await first.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'retry me' } });
    const [failed] = await waitForLog(first, site, (d) => d[0]?.attempts.length === 1);
    expect(failed).toMatchObject({ state: 'pending', attempts: [{ status_code: 500 }] });
    const due = Date.parse(failed.next_attempt_at);
    await kill(first);

    phase = 2;
    const second = await serve();
    const [, retried] = await receiver.waitFor(2, 20_000);
    expect(retried.headers['x-service-delivery']).toBe(failed.id);
    expect(retried.at).toBeGreaterThanOrEqual(due);
    const [logged] = await waitForLog(second, site, (d) => d[0]?.state === 'succeeded');
    expect(logged.attempts.map((a: any) => [a.number, a.status_code])).toEqual([
      [1, 500],
      [2, 200],
    ]);
  }, 60_000);

  it('drains an attempt in flight on SIGTERM, then exits 0', async () => {
    const receiver = await startReceiver(() => 'hang');
    receivers.push(receiver);
    const site = await cli('bootstrap', '--site-name', 'Drain', '--plan', 'publisher', '--json');
    const server = await serve({ PARLEY_WEBHOOK_TIMEOUT: '2s' });
    await subscribe(server, site, receiver.url, ['comment.created']);
    await server.request('POST', '/v1/comments', { token: site.api_key, body: { thread_url: pageUrl(), site_id: site.site_id, content: 'drain' } });
    await receiver.waitFor(1);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    // It waited for the attempt (which ran into its time-out) instead of abandoning it.
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(1_000);

    const restarted = await serve();
    const [logged] = await waitForLog(restarted, site, (d) => d[0]?.attempts.length === 1);
    expect(logged.attempts[0].error).toBe('timeout');
  }, 60_000);
});
