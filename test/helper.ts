import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterEach, expect } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { postgresUrl } from '../src/db/connect.ts';
import { bootstrap, type BootstrapOptions } from '../src/sites/bootstrap.ts';
import { findSite } from '../src/sites/repository.ts';
import { formSecretOf, issueFormToken } from '../src/spam/form-token.ts';

/**
 * The dialect matrix: tests run on a fresh SQLite file, or on a fresh PostgreSQL database when
 * PARLEY_TEST_DATABASE_URL points at a server (the database named there is used only to create and
 * drop the per-test ones).
 */
export const TEST_DATABASE_URL = process.env.PARLEY_TEST_DATABASE_URL ? postgresUrl(process.env.PARLEY_TEST_DATABASE_URL) : undefined;
export const dialectName = TEST_DATABASE_URL ? 'postgres' : 'sqlite';

export interface FreshDatabase {
  /** A DATABASE_URL for the new, empty database. */
  url: string;
  drop(): Promise<void>;
}

/** An empty database of the dialect under test, for a test server, a CLI run or a migration. */
export async function freshDatabaseUrl(): Promise<FreshDatabase> {
  if (!TEST_DATABASE_URL) {
    const dir = mkdtempSync(join(tmpdir(), 'parley-test-'));
    return { url: `sqlite:${join(dir, 'parley.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  return freshPostgresDatabase(TEST_DATABASE_URL, 'parley_test');
}

/** A new, empty database on the PostgreSQL server of `serverUrl`, and how to drop it again. */
export async function freshPostgresDatabase(serverUrl: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  headers?: Record<string, string>;
  /** A raw body sent as is (for malformed-input tests). */
  raw?: string;
  /** `manual`: Parley's own redirect is the answer, not the page it leads to. */
  redirect?: RequestRedirect;
}

export interface TestParley {
  url: string;
  app: FastifyInstance;
  config: Config;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** A new account with one site and an admin key (what `parley bootstrap` makes). */
  newSite(options?: Partial<BootstrapOptions>): Promise<{ account_id: string; site_id: string; api_key: string }>;
  /**
   * What the widget sends with a guest's comment (src/spam): a form token issued a minute ago, as if
   * the reader had taken that long to write.
   */
  guestForm(siteId: string): Promise<{ form_token: string }>;
  /** Signs a site user in (POST /v1/sessions) and returns the session token. */
  signIn(apiKey: string, siteId: string, user: { id: string; name: string; moderator?: boolean }): Promise<string>;
  close(): Promise<void>;
}

/**
 * Every test client is 127.0.0.1, one IP for the whole suite: rate limits stay off unless a test
 * sets its own.
 */
const RATE_LIMITS_OFF = {
  PARLEY_RATE_LIMIT_KEY_PER_MINUTE: '0',
  PARLEY_RATE_LIMIT_SESSION_COMMENTS_PER_HOUR: '0',
  PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR: '0',
  PARLEY_RATE_LIMIT_IP_PER_MINUTE: '0',
  PARLEY_RATE_LIMIT_CONFIRM_MAILS_PER_READER: '0',
  PARLEY_RATE_LIMIT_CONFIRM_MAILS_PER_SITE: '0',
};

/**
 * A real Parley on a real database, listening on 127.0.0.1 at a free port. The database is a fresh
 * one, dropped on close, unless env.DATABASE_URL names one (which the caller then owns).
 */
export async function startParley(env: Record<string, string> = {}): Promise<TestParley> {
  const database = env.DATABASE_URL ? { url: env.DATABASE_URL, drop: async () => undefined } : await freshDatabaseUrl();
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', ...RATE_LIMITS_OFF, ...env, DATABASE_URL: database.url });
  const app = await buildApp(config);
  // PORT 0 (the default) is a free port; a test that needs Parley's address before it starts names one.
  await app.listen({ port: config.port, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

  async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url + path, { method, headers, body, redirect: options.redirect });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  return {
    url,
    app,
    config,
    request,
    newSite: (options = {}) => bootstrap(app.db.kysely, { siteName: 'Test site', plan: 'publisher', ...options }),
    guestForm: async (siteId) => {
      const secret = await formSecretOf(app.db.kysely, (await findSite(app.db.kysely, siteId))!);
      return { form_token: issueFormToken(secret, siteId, Date.now() - 60_000) };
    },
    signIn: async (apiKey, siteId, user) => {
      const response = await request<{ token: string }>('POST', '/v1/sessions', { token: apiKey, body: { site_id: siteId, user } });
      if (response.status !== 201) throw new Error(`sign-in failed: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body.token;
    },
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
}

/**
 * For test files whose tests each start servers of their own configuration: returns startParley,
 * and closes every server it started after each test.
 */
export function parleysPerTest(): (env?: Record<string, string>) => Promise<TestParley> {
  const running: TestParley[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((parley) => parley.close()));
  });
  return async (env) => {
    const parley = await startParley(env);
    running.push(parley);
    return parley;
  };
}

/**
 * Two servers on one fresh database without Redis, so neither hears of the other's writes; both are
 * closed and the database dropped after `use`.
 */
export async function twoInstances(use: (writer: TestParley, reader: TestParley) => Promise<void>): Promise<void> {
  const database = await freshDatabaseUrl();
  const writer = await startParley({ DATABASE_URL: database.url });
  const reader = await startParley({ DATABASE_URL: database.url });
  try {
    await use(writer, reader);
  } finally {
    await reader.close();
    await writer.close();
    await database.drop();
  }
}

/** A page address on the given host, unique per call so tests do not share threads. */
let counter = 0;
export function pageUrl(host = 'blog.example.com'): string {
  counter += 1;
  return `https://${host}/posts/${Date.now()}-${counter}`;
}

/**
 * A new site with a thread and three signed-in users (Alice and Bob, and Mo, a moderator), with
 * `post` (returns the new comment's id) and `write` (any call that must succeed) as their tokens.
 */
export async function threadWithUsers(parley: TestParley) {
  const site = await parley.newSite();
  const alice = await parley.signIn(site.api_key, site.site_id, { id: 'alice', name: 'Alice' });
  const bob = await parley.signIn(site.api_key, site.site_id, { id: 'bob', name: 'Bob' });
  const moderator = await parley.signIn(site.api_key, site.site_id, { id: 'mod', name: 'Mo', moderator: true });
  const thread = pageUrl();
  const path = `/v1/comments?thread_url=${encodeURIComponent(thread)}&site_id=${site.site_id}`;
  const post = async (token: string, content: string, parent_id?: string): Promise<string> => {
    const response = await parley.request('POST', '/v1/comments', { token, body: { thread_url: thread, site_id: site.site_id, content, parent_id } });
    expect(response.status).toBe(201);
    return response.body.id;
  };
  const write = async (method: string, path: string, token: string, body?: unknown) => {
    expect((await parley.request(method, path, { token, body })).status).toBeLessThan(300);
  };
  return { site, alice, bob, moderator, path, post, write };
}
