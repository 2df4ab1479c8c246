import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { dialectName, freshDatabaseUrl } from './helper.ts';

const run = promisify(execFile);
const checkout = resolve('.');

/**
 * Every guide's shell examples, run as a newcomer would: each guide's ```sh blocks in order, in one
 * shell where the `export` lines of a fresh `parley serve` were pasted, against that server. A
 * ```sh-norun block is shown to readers but not run; each one is listed below with the reason.
 */
const GUIDES = ['README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** What a guide's server needs beyond the defaults, as the guide tells its reader to start it. */
const SERVER_ENV: Record<string, Record<string, string>> = {
  // These guides' receivers run on this machine, which Parley refuses to deliver to by default.
  'docs/webhooks.md': { PARLEY_WEBHOOK_ALLOW_PRIVATE: 'true' },
  'docs/alerts.md': { PARLEY_WEBHOOK_ALLOW_PRIVATE: 'true' },
  // The guide reads the mails in the server's log, which shows them at info level (the default).
  'docs/mail.md': { PARLEY_SMTP_URL: 'log:', PARLEY_MAIL_FROM: 'parley@localhost', LOG_LEVEL: 'info' },
  // These guides read readers' sign-in codes in the server's log, as docs/mail.md reads its mails.
  'docs/sign-in.md': { PARLEY_SMTP_URL: 'log:', PARLEY_MAIL_FROM: 'parley@localhost', LOG_LEVEL: 'info' },
  'docs/static-site.md': { PARLEY_SMTP_URL: 'log:', PARLEY_MAIL_FROM: 'parley@localhost', LOG_LEVEL: 'info' },
};

/** The blocks not run, by the start of their first line, and why. */
const NOT_RUN: Record<string, string> = {
  'npm install && npm start': 'installs and starts the server that this test starts itself',
  'PARLEY_SMTP_URL=log: PARLEY_MAIL_FROM=': 'starts the server that this test starts itself, with these settings (SERVER_ENV)',
  'npm test': 'runs the whole suite, this test among it',
  'npm install @parley/': "installs a package into the reader's own project",
  'npm pack --workspace': "packs a package for the reader's own project",
  'npx vitest run src/i18n/catalogs.test.ts': 'runs one test of the suite, in a checkout with its development dependencies',
  'npx vitest run src/widget/keyboard.browser.test.ts': 'runs browser tests of the suite, in a checkout with its development dependencies and Chromium',
  'PARLEY_SKIP_BROWSER=1 npm test': 'runs the whole suite, this test among it',
  'PARLEY_TEST_DATABASE_URL=': 'needs a PostgreSQL server and runs the whole suite',
  'export PARLEY_SMTP_URL=smtps://': 'needs a real SMTP server',
  'export DATABASE_URL=postgres://': 'needs PostgreSQL and Redis',
  'pg_dump': 'needs PostgreSQL',
  'sudo systemctl': 'installs a system service',
};

const fenced = (text: string, language: string) => [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);

interface Started {
  server: ChildProcess;
  exports: string;
  databaseUrl: string;
  stop: () => Promise<void>;
}

/** A port nothing listens on, so that the server knows its own address (mails link to it). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts `parley serve` with its output in `logFile`, as `npm start > parley.log` would. */
async function startServer(env: Record<string, string>, logFile: string): Promise<Started> {
  const database = await freshDatabaseUrl();
  const port = String(await freePort());
  const server = spawn('node', ['bin/parley.js', 'serve'], { env: { ...process.env, LOG_LEVEL: 'warn', ...env, DATABASE_URL: database.url, PORT: port } });
  server.stdout!.pipe(createWriteStream(logFile));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 30_000);
    server.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('PARLEY_SETUP_LINK=')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const exports = output.split('\n').filter((line) => line.trim().startsWith('export ')).join('\n');
  const exited = new Promise((resolve) => server.once('exit', resolve));
  const stop = async () => {
    server.kill('SIGTERM');
    await exited;
    await database.drop();
  };
  return { server, exports, databaseUrl: database.url, stop };
}

/**
 * A directory to run a guide in, as the reader's own: `npx parley` runs this checkout's CLI on the
 * server's database, `src/` is there for the sample files the guides import, and `parley.log` holds
 * the server's output.
 */
function workingDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-guide-'));
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(join(checkout, 'bin', 'parley.js'), join(dir, 'node_modules', '.bin', 'parley'));
  symlinkSync(join(checkout, 'src'), join(dir, 'src'));
  return dir;
}

const directories: string[] = [];
afterAll(() => directories.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('the guides', () => {
  it('mark only the blocks that cannot run here as not run, each for a listed reason', () => {
    const used = new Set<string>();
    for (const guide of GUIDES) {
      for (const block of fenced(readFileSync(guide, 'utf8'), 'sh-norun')) {
        const reason = Object.keys(NOT_RUN).find((start) => block.trimStart().startsWith(start));
        expect(reason, `${guide}: a sh-norun block without a reason in NOT_RUN:\n${block}`).toBeDefined();
        used.add(reason!);
      }
    }
    // A reason no block needs any more would let the next unrunnable block slip through unexamined.
    expect(Object.keys(NOT_RUN).filter((start) => !used.has(start))).toEqual([]);
  });

  it('use curl -sS in every example, so that a failure is said', () => {
    for (const guide of GUIDES) {
      for (const block of [...fenced(readFileSync(guide, 'utf8'), 'sh'), ...fenced(readFileSync(guide, 'utf8'), 'sh-norun')]) {
        for (const call of block.match(/(^|[\s(|;$])curl [^\n]*/g) ?? []) expect(call, `${guide}`).toMatch(/curl -sS/);
      }
    }
  });
});

// The guides follow a newcomer's `npm start`, on its SQLite database (the backup example copies
// that file), so they run in the SQLite pass; the PostgreSQL pass would only run them again.
for (const guide of GUIDES) {
  const blocks = fenced(readFileSync(guide, 'utf8'), 'sh');
  describe.runIf(blocks.length > 0 && dialectName === 'sqlite')(guide, () => {
    it('runs every shell example verbatim, in order, against a fresh server, each command succeeding', async () => {
      const dir = workingDirectory();
      directories.push(dir);
      const started = await startServer(SERVER_ENV[guide] ?? {}, join(dir, 'parley.log'));
      try {
        // curl is made to fail on an HTTP error so that a wrong example fails this test.
        const script = ['set -euo pipefail', started.exports, 'curl() { command curl --fail-with-body "$@"; }', ...blocks].join('\n');
        const { stdout } = await run('bash', ['-c', script], {
          cwd: dir,
          timeout: 240_000,
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, DATABASE_URL: started.databaseUrl, PATH: `${join(dir, 'node_modules', '.bin')}:${process.env.PATH}` },
        });
        expect(stdout.length).toBeGreaterThan(0);
      } catch (error) {
        const failed = error as { stdout?: string; stderr?: string; message: string };
        throw new Error(`${guide}: ${failed.message}\n--- stdout (end) ---\n${failed.stdout?.slice(-3000)}\n--- stderr ---\n${failed.stderr?.slice(-3000)}`);
      } finally {
        await started.stop();
      }
    }, 300_000);
  });
}
