import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { setFlagsFromString } from 'node:v8';
import { pino } from 'pino';
import { loadConfig, type Config } from './config.ts';
import { connect } from './db/connect.ts';
import type { Database } from './db/schema.ts';
import { migrateToLatest } from './db/migrate.ts';
import { ROLES, type Role } from './auth/caller.ts';
import { bootstrap } from './sites/bootstrap.ts';
import { PLANS, type Plan } from './sites/plans.ts';
import { accountOfSites, listAllSites, MODERATION_MODES, type ModerationMode } from './sites/repository.ts';
import { createKey } from './keys/service.ts';
import { setPlan } from './sites/service.ts';
import { serve } from './server.ts';
import { importFile } from './transfer/import.ts';
import { runImportJob } from './transfer/import-job.ts';
import { EXPORT_FORMATS, exportSite, type ExportFormat } from './transfer/export.ts';
import { describeReport } from './transfer/report.ts';
import { FORMATS, type Format } from './transfer/source.ts';
import { readPassword } from './staff/password-prompt.ts';
import { BackupRefused, backupSqlite, describeBackup } from './backup/backup.ts';
import { doctor } from './doctor/doctor.ts';
import { createOwner } from './staff/service.ts';

const USAGE = `usage:
  parley serve
  parley migrate
  parley bootstrap --site-name NAME [--domain D]... [--plan P] [--moderation M] [--no-guests] --json
  parley keys create (--account ID | --site ID) --role R [--name LABEL] [--site ID]... --json
  parley sites list [--json]
  parley plan set --account ID --plan P
  parley admin create --email E [--name N] [--account ID]   (password from a terminal prompt, or stdin)
  parley import --site ID FILE [--dry-run] [--format F] [--base-url URL] [--json]
  parley export --site ID [--format parley|disqus] [--include-personal-data] > FILE
  parley backup --to FILE   (SQLite: an online copy of the live database)
  parley doctor             (checks configuration, database, Redis, SMTP and webhook endpoints)`;

class UsageError extends Error {}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function required(flag: string, value: string | undefined): string {
  if (!value) throw new UsageError(`${flag} is required`);
  return value;
}

/** Runs a command against the configured database, migrating first so it works on a fresh one. */
async function withDb<T>(config: Config & { bulkWrites?: boolean }, work: (db: ReturnType<typeof connect>) => Promise<T>): Promise<T> {
  const db = connect(config);
  try {
    await migrateToLatest(db);
    return await work(db);
  } finally {
    await db.close();
  }
}

/**
 * An import or an export runs for minutes and makes garbage at a steady rate, and between two full
 * collections V8 lets the old generation grow to up to four times what is live: 116 MB of heap at
 * the end of a 200,000-comment import that kept 25 MB live. Capped at 40 % over what is live, as
 * `npm start` caps the server's (docs/performance.md, Memory). V8 sizes the heap by it after each full
 * collection, so set here it applies from the next one: 75-80 MB for that import.
 */
function boundHeapGrowth(): void {
  setFlagsFromString('--heap-growing-percent=40');
}

/** A key made with --site and no --account belongs to the sites' account (so a lost admin key can be replaced knowing only a site id). */
async function accountOwning(db: Kysely<Database>, siteIds: string[]): Promise<string> {
  const { accountIds, missing } = await accountOfSites(db, siteIds);
  if (missing.length > 0) throw new Error(`no site ${missing.join(', ')}`);
  if (accountIds.length > 1) throw new UsageError('the sites belong to different accounts: name one with --account');
  return accountIds[0];
}

/** `parley sites list` for a person: one site a line, columns aligned. */
function siteTable(sites: Array<{ id: string; name: string; account_id: string; created_at: string }>): string {
  const rows = [['id', 'name', 'account', 'created'], ...sites.map((site) => [site.id, site.name, site.account_id, site.created_at])];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ')).join('\n') + '\n';
}

/** A progress line on stderr when it is a terminal (never in a pipe or a log). */
function progressOnTerminal(): ((stage: 'read' | 'written', count: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  return (stage, count) => process.stderr.write(`\r${stage === 'read' ? 'read' : 'written'}: ${count.toLocaleString('en')} records${' '.repeat(10)}`);
}

export async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'site-name': { type: 'string' },
      domain: { type: 'string', multiple: true },
      plan: { type: 'string' },
      moderation: { type: 'string' },
      'no-guests': { type: 'boolean' },
      json: { type: 'boolean' },
      account: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      site: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
      format: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'base-url': { type: 'string' },
      'include-personal-data': { type: 'boolean' },
      to: { type: 'string' },
      job: { type: 'string' },
    },
  });
  // import takes its file as the last word.
  const file = positionals[0] === 'import' ? positionals[1] : undefined;
  const command = positionals[0] === 'import' ? 'import' : positionals.join(' ');
  if (values.help || command === '') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === 'doctor') {
    // Before loading the configuration: the doctor reports every wrong value rather than stop at one.
    process.exitCode = await doctor(process.env, (text) => process.stdout.write(text));
    return;
  }
  const config = loadConfig();
  const print = (result: unknown) => process.stdout.write(`${JSON.stringify(result)}\n`);
  switch (command) {
    case 'serve':
      await serve(config);
      return;
    case 'migrate': {
      const db = connect(config);
      const applied = await migrateToLatest(db).finally(() => db.close());
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
      return;
    }
    case 'bootstrap': {
      const options = {
        siteName: required('--site-name', values['site-name']),
        domains: values.domain,
        plan: oneOf<Plan>('--plan', values.plan, PLANS),
        moderation: oneOf<ModerationMode>('--moderation', values.moderation, MODERATION_MODES),
        allowGuests: !values['no-guests'],
      };
      print(await withDb(config, (db) => bootstrap(db.kysely, options)));
      return;
    }
    case 'keys create': {
      if (!values.account && !values.site) throw new UsageError('--account or --site is required');
      const role = oneOf<Role>('--role', required('--role', values.role), ROLES)!;
      const siteIds = values.site ?? null;
      const key = await withDb(config, async (db) => {
        const accountId = values.account ?? (await accountOwning(db.kysely, siteIds!));
        return db.kysely.transaction().execute((trx) => createKey(trx, accountId, { role, name: values.name, site_ids: siteIds }));
      });
      print({ key_id: key.id, api_key: key.api_key });
      return;
    }
    case 'sites list': {
      const sites = await withDb(config, (db) => listAllSites(db.kysely));
      process.stdout.write(values.json ? `${JSON.stringify(sites)}\n` : siteTable(sites));
      return;
    }
    case 'plan set': {
      const accountId = required('--account', values.account);
      const plan = oneOf<Plan>('--plan', required('--plan', values.plan), PLANS)!;
      print(await withDb(config, (db) => setPlan(db.kysely, accountId, plan)));
      return;
    }
    case 'import': {
      const siteId = required('--site', values.site?.[0]);
      const path = required('FILE', file);
      const format = oneOf<Format>('--format', values.format, FORMATS);
      boundHeapGrowth();
      const withChanges = <T>(work: (db: ReturnType<typeof connect>) => Promise<T>) =>
        withDb({ ...config, bulkWrites: true }, (db) => {
          // So that running instances drop their cached lists of the site's pages when the import is done.
          if (config.redisUrl) db.changes.connectRedis(config.redisUrl, config.rateLimits.redisKeyPrefix, pino({ level: 'silent' }));
          return work(db);
        });
      if (values.job) {
        // Started by a server for an import job of its management API (transfer/job-runner.ts): the
        // job's row has the rest, and the report goes there. Ends with the server (its stdin closes).
        process.stdin.once('end', () => process.exit(1)).resume().unref();
        await withChanges((db) => runImportJob(db, values.job!, { path, baseUrl: values['base-url'] }));
        return;
      }
      const report = await withChanges((db) => importFile(db, { siteId, path, format, dryRun: values['dry-run'], baseUrl: values['base-url'], onProgress: progressOnTerminal() }));
      if (process.stderr.isTTY) process.stderr.write('\n');
      process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : describeReport(report));
      return;
    }
    case 'export': {
      const siteId = required('--site', values.site?.[0]);
      const format = oneOf<ExportFormat>('--format', values.format, EXPORT_FORMATS) ?? 'parley';
      boundHeapGrowth();
      await withDb(config, (db) => exportSite(db.kysely, { siteId, format, includePersonalData: Boolean(values['include-personal-data']) }, process.stdout));
      return;
    }
    case 'backup': {
      const to = required('--to', values.to);
      try {
        process.stdout.write(describeBackup(await backupSqlite(config.databaseUrl, to)));
      } catch (error) {
        // Advice, not a failure of Parley: said without the "parley:" of an error.
        if (!(error instanceof BackupRefused)) throw error;
        process.stderr.write(`${error.message}\n`);
        process.exitCode = 1;
      }
      return;
    }
    case 'admin create': {
      const email = required('--email', values.email);
      const password = await readPassword();
      print(await withDb(config, (db) => createOwner(db, { email, name: values.name, password, accountId: values.account })));
      return;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`parley: ${message}\n${error instanceof UsageError ? `${USAGE}\n` : ''}`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
