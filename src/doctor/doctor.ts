import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import { LOG_TRANSPORT, type Config } from '../config.ts';
import { connect, sqlitePath, type Db } from '../db/connect.ts';
import { pendingMigrations } from '../db/migrate.ts';
import { resolveTarget } from '../webhooks/address.ts';
import { checkConfiguration } from './configuration.ts';
import { describeResults, withoutPassword, type CheckResult } from './report.ts';

/** Each network check gives up after this: a dropped packet must not hang the doctor. */
const TIMEOUT_MS = 5000;
/** Webhook hosts looked up at once. */
const LOOKUPS_AT_ONCE = 8;
/** Webhook problems listed one by one; past this, counted. */
const LISTED_PROBLEMS = 20;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function withinTimeout<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * `parley doctor`: configuration, database and migrations, Redis, SMTP and webhook endpoints,
 * checked one after another, each finding printed as ok, warn or fail. Returns the exit code: 1 if
 * anything failed. Reads only: it creates no database and applies no migration.
 */
export async function doctor(env: Record<string, string | undefined>, write: (text: string) => void): Promise<number> {
  const configuration = checkConfiguration(env);
  const results = [...configuration.results];
  const { config, invalid } = configuration;

  const database = invalid.has('DATABASE_URL') ? null : await checkDatabase(config);
  results.push(database?.result ?? { level: 'fail', subject: 'database', text: 'not checked: DATABASE_URL is invalid' });
  results.push(config.redisUrl ? await checkRedis(config.redisUrl) : { level: 'ok', subject: 'redis', text: 'not configured (REDIS_URL): enough for one instance; several share rate limits and cache invalidation only through Redis' });
  if (config.mail) results.push(await checkSmtp(config.mail.smtpUrl));
  if (database?.db) {
    if (database.hasSites) {
      const failed = (error: unknown): CheckResult[] => [{ level: 'fail', subject: 'webhooks', text: messageOf(error) }];
      results.push(...(await checkWebhooks(database.db, config.webhookAllowPrivate).catch(failed)));
    }
    await database.db.close();
  }
  write(describeResults(results));
  return results.some((result) => result.level === 'fail') ? 1 : 0;
}

/** The database check, and the database left open for the webhook check when it could be opened. */
async function checkDatabase(config: Config): Promise<{ result: CheckResult; db: Db | null; hasSites: boolean }> {
  const subject = 'database';
  const where = config.databaseUrl.startsWith('postgres') ? `PostgreSQL at ${withoutPassword(config.databaseUrl)}` : `SQLite at ${sqlitePath(config.databaseUrl)}`;
  // Opening a SQLite file that is not there would create it (and its directory).
  if (!config.databaseUrl.startsWith('postgres') && !existsSync(sqlitePath(config.databaseUrl))) {
    return { db: null, hasSites: false, result: { level: 'warn', subject, text: `${where}: no database file yet; parley serve or parley migrate creates it` } };
  }
  let db: Db | null = null;
  try {
    db = connect({ ...config, databasePoolSize: 1 });
    const pending = await withinTimeout(where, pendingMigrations(db));
    // Without the first migration there are no sites, so no webhook endpoints to look at.
    const hasSites = !pending.includes('0001_initial');
    if (pending.length === 0) return { db, hasSites, result: { level: 'ok', subject, text: `${where} answers; every migration is applied` } };
    const text = `${where} answers; ${pending.length} migration${pending.length === 1 ? '' : 's'} not applied yet (${pending.join(', ')}): parley serve applies them on start, or run parley migrate`;
    return { db, hasSites, result: { level: 'warn', subject, text } };
  } catch (error) {
    await db?.close().catch(() => undefined);
    return { db: null, hasSites: false, result: { level: 'fail', subject, text: `${where}: ${messageOf(error)}` } };
  }
}

async function checkRedis(url: string): Promise<CheckResult> {
  const where = withoutPassword(url);
  // One attempt, no retries and no queue: the answer is about now.
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: TIMEOUT_MS, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  // The connection's own error says why (ECONNREFUSED, a wrong password); connect() only that it closed.
  let cause: unknown;
  redis.on('error', (error) => (cause ??= error));
  try {
    await withinTimeout(where, redis.connect());
    const version = /redis_version:(\S+)/.exec(await withinTimeout(where, redis.info('server')))?.[1] ?? 'unknown';
    return { level: 'ok', subject: 'redis', text: `${where} answers (Redis ${version})` };
  } catch (error) {
    return { level: 'fail', subject: 'redis', text: `${where}: ${messageOf(cause ?? error)}` };
  } finally {
    redis.disconnect();
  }
}

async function checkSmtp(url: string): Promise<CheckResult> {
  if (url === LOG_TRANSPORT) return { level: 'warn', subject: 'smtp', text: `PARLEY_SMTP_URL=${LOG_TRANSPORT} mails are written to the log, not delivered (for development only)` };
  const where = withoutPassword(url);
  // Loaded here, not with the CLI: every command would pay for it (about 16 MB of RSS).
  const { createTransport } = await import('nodemailer');
  const transporter = createTransport({ url, connectionTimeout: TIMEOUT_MS, greetingTimeout: TIMEOUT_MS, socketTimeout: TIMEOUT_MS });
  try {
    // Connects, greets, and signs in if the URL has a user: what sending a mail would do first.
    await transporter.verify();
    return { level: 'ok', subject: 'smtp', text: `${where} accepts a connection${new URL(url).username ? ' and the sign-in' : ''}` };
  } catch (error) {
    return { level: 'fail', subject: 'smtp', text: `${where}: ${messageOf(error)}` };
  } finally {
    transporter.close();
  }
}

/**
 * Each enabled endpoint's host must resolve, and to public addresses unless private ones are allowed:
 * otherwise its deliveries fail. That is one site's setting, not the service's health: a warning.
 */
async function checkWebhooks(db: Db, allowPrivate: boolean): Promise<CheckResult[]> {
  const subject = 'webhooks';
  const sites = await db.kysely.selectFrom('sites').select(['id', 'webhook_url']).where('webhook_url', 'is not', null).where('webhook_events', '!=', '[]').execute();
  if (sites.length === 0) return [{ level: 'ok', subject, text: 'no site has a webhook endpoint' }];
  const sitesByHost = new Map<string, string[]>();
  for (const site of sites) {
    const host = new URL(site.webhook_url!).hostname;
    sitesByHost.set(host, [...(sitesByHost.get(host) ?? []), site.id]);
  }
  const hosts = [...sitesByHost.keys()];
  const problems: string[] = [];
  for (let i = 0; i < hosts.length; i += LOOKUPS_AT_ONCE) {
    await Promise.all(
      hosts.slice(i, i + LOOKUPS_AT_ONCE).map(async (host) => {
        try {
          await withinTimeout(`the lookup of ${host}`, resolveTarget(host, allowPrivate));
        } catch (error) {
          const siteIds = sitesByHost.get(host)!;
          problems.push(`${messageOf(error)} (site${siteIds.length === 1 ? '' : 's'} ${siteIds.slice(0, 3).join(', ')}${siteIds.length > 3 ? ` and ${siteIds.length - 3} more` : ''})`);
        }
      }),
    );
  }
  const endpoints = `${sites.length} enabled endpoint${sites.length === 1 ? '' : 's'} on ${hosts.length} host${hosts.length === 1 ? '' : 's'}`;
  if (problems.length === 0) {
    return [{ level: 'ok', subject, text: `${endpoints}: each resolves${allowPrivate ? '' : ' to public addresses only'}` }];
  }
  const advice = allowPrivate ? '' : '; a receiver on your own network needs PARLEY_WEBHOOK_ALLOW_PRIVATE=true';
  const listed = problems.sort().slice(0, LISTED_PROBLEMS).map((text): CheckResult => ({ level: 'warn', subject, text: `${text}: its deliveries fail` }));
  const more = problems.length - listed.length;
  return [
    { level: 'warn', subject, text: `${endpoints}: ${problems.length} cannot be delivered to${advice}` },
    ...listed,
    ...(more > 0 ? [{ level: 'warn' as const, subject, text: `and ${more} more hosts` }] : []),
  ];
}
