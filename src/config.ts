import { isIP } from 'node:net';

/** One entry per environment variable: its default and what it means (also rendered in the README). */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** PostgreSQL pool size and statement time-out; ignored on SQLite. */
  databasePoolSize: number;
  databaseStatementTimeoutMs: number;
  databaseSsl: boolean;
  redisUrl: string | null;
  /** Proxy addresses or CIDRs whose X-Forwarded-For is believed; empty = use the socket address. */
  trustProxy: string[];
  logLevel: string;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  webhookAllowPrivate: boolean;
  /** Memory for cached public list responses, in MB (PARLEY_RESPONSE_CACHE_MB, 32); 0 turns the cache off. */
  responseCacheMb: number;
  rateLimits: {
    keyPerMinute: number;
    sessionCommentsPerHour: number;
    guestCommentsPerHour: number;
    ipPerMinute: number;
  };
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min) {
    throw new ConfigError(`${name} must be a whole number >= ${min}, got "${raw}"`);
  }
  return Number(raw);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(name: string, raw: string): number {
  const match = /^(\d+)(ms|s|m|h)$/.exec(raw.trim());
  if (!match) throw new ConfigError(`${name} must be durations like 30s, 2m or 500ms, got "${raw}"`);
  return Number(match[1]) * UNITS[match[2]];
}

function durations(env: Env, name: string, fallback: string): number[] {
  const raw = env[name] || fallback;
  return raw.split(',').map((part) => parseDuration(name, part));
}

function databaseUrl(raw: string | undefined): string {
  const url = raw || 'sqlite:./data/parley.db';
  if (!/^(sqlite:|file:|postgres(ql)?:\/\/)/.test(url)) {
    throw new ConfigError(`DATABASE_URL must start with sqlite:, file: or postgres://, got "${url}"`);
  }
  return url;
}

function trustedProxies(raw: string | undefined): string[] {
  if (!raw) return [];
  const entries = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    if (!family || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(`TRUST_PROXY takes proxy addresses or CIDRs separated by commas, got "${entry}"`);
    }
  }
  return entries;
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`);
  }
  return Object.freeze({
    port: integer(env, 'PORT', 3000),
    host: env.HOST || '127.0.0.1',
    databaseUrl: databaseUrl(env.DATABASE_URL),
    databasePoolSize: integer(env, 'PARLEY_DATABASE_POOL_SIZE', 10, 1),
    databaseStatementTimeoutMs: integer(env, 'PARLEY_DATABASE_STATEMENT_TIMEOUT_MS', 10_000),
    databaseSsl: boolean(env, 'PARLEY_DATABASE_SSL', false),
    redisUrl: env.REDIS_URL || null,
    trustProxy: trustedProxies(env.TRUST_PROXY),
    logLevel,
    webhookRetryDelaysMs: durations(env, 'PARLEY_WEBHOOK_RETRY_DELAYS', '30s,2m,10m'),
    webhookTimeoutMs: durations(env, 'PARLEY_WEBHOOK_TIMEOUT', '10s')[0],
    webhookAllowPrivate: boolean(env, 'PARLEY_WEBHOOK_ALLOW_PRIVATE', false),
    responseCacheMb: integer(env, 'PARLEY_RESPONSE_CACHE_MB', 32),
    rateLimits: Object.freeze({
      keyPerMinute: integer(env, 'PARLEY_RATE_LIMIT_KEY_PER_MINUTE', 1000),
      sessionCommentsPerHour: integer(env, 'PARLEY_RATE_LIMIT_SESSION_COMMENTS_PER_HOUR', 30),
      guestCommentsPerHour: integer(env, 'PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR', 5),
      ipPerMinute: integer(env, 'PARLEY_RATE_LIMIT_IP_PER_MINUTE', 600),
    }),
  });
}
