import { isIP } from 'node:net';

/** One entry per environment variable: its default and what it means (also listed in docs/configuration.md). */
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
  /** After SIGTERM, /readyz fails but requests are still served for this long, then the listener closes (PARLEY_SHUTDOWN_DELAY, 0s). */
  shutdownDelayMs: number;
  /** Bearer token that GET /metrics answers to (PARLEY_METRICS_TOKEN); null = no /metrics at all. */
  metricsToken: string | null;
  /** Limits on slow and idle clients (docs/api.md, "Limits on requests"). */
  http: {
    /** The request line and headers must arrive within this. */
    headersTimeoutMs: number;
    /** The whole request, body included, must arrive within this. */
    requestTimeoutMs: number;
    /** A socket with no traffic at all is closed after this. */
    idleTimeoutMs: number;
    /** An idle keep-alive connection is closed after this. */
    keepAliveTimeoutMs: number;
  };
  /** Reply notifications and other mail (docs/mail.md); null: no mail at all. */
  mail: MailConfig | null;
  /** The origin readers' browsers and identity providers reach Parley at (PARLEY_PUBLIC_URL; default http://HOST:PORT). */
  publicUrl: string;
  /** How long a reader's deleted account waits before it is erased; signing in meanwhile keeps it (PARLEY_ERASE_GRACE, 7d; 0 erases at once). */
  eraseGraceMs: number;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  webhookAllowPrivate: boolean;
  /** Whether readers' identity providers may be at private or link-local addresses (PARLEY_IDENTITY_ALLOW_PRIVATE, false); this machine's own are always allowed. */
  identityAllowPrivate: boolean;
  /**
   * A folder of dashboard message files (`<locale>.json`, PARLEY_DASHBOARD_LOCALES; none by default)
   * that take the place of Parley's own of the same name: a translator sees their work in place.
   */
  dashboardLocales: string | null;
  /** Memory for cached public responses (lists and single comments), in MB (PARLEY_RESPONSE_CACHE_MB, 32); 0 turns the cache off. */
  responseCacheMb: number;
  /**
   * Memory for what list pages are assembled from, in MB (PARLEY_SUBTREE_CACHE_MB, 16): the
   * serialised subtrees (a top-level comment and its replies; five eighths), the top-level ids of
   * pages sorted by time, signed-in readers' marks and their last list of each URL (an eighth each);
   * 0 turns it off.
   */
  subtreeCacheMb: number;
  /** Live streams (GET /v1/comments/stream). */
  live: {
    /** Open streams this instance serves at most (PARLEY_LIVE_MAX_STREAMS, 10000); past it, 429. */
    maxStreams: number;
    /** Open streams per client at most (PARLEY_LIVE_MAX_STREAMS_PER_IP, 20): a reader's tabs, or one office behind NAT; an IPv6 client counts as its /64. */
    maxStreamsPerIp: number;
    /** A comment line is sent this often (PARLEY_LIVE_HEARTBEAT, 15s), and missed announcements are looked for. */
    heartbeatMs: number;
    /** A stream is closed after this long (PARLEY_LIVE_MAX_STREAM_AGE, 30m); the browser reconnects and resumes where it was. */
    maxStreamAgeMs: number;
  };
  /** Each limit counts per window; 0 turns that limit off. */
  rateLimits: {
    /** Requests per API key per request window, on every endpoint. */
    keyPerMinute: number;
    /** Comment creations per session user per comment window. */
    sessionCommentsPerHour: number;
    /** Comment creations per guest IP per comment window. */
    guestCommentsPerHour: number;
    /** Votes, vote removals and reactions per guest IP per comment window, where a site lets guests vote. */
    guestVotesPerHour: number;
    /** Every other request (public reads, other session calls) per client IP per request window. */
    ipPerMinute: number;
    /** Confirmation mails a reader (a guest's IP, or a session's user) causes per comment window (PARLEY_RATE_LIMIT_CONFIRM_MAILS_PER_READER, 5). */
    confirmMailsPerReader: number;
    /** Confirmation mails per site per comment window, whoever causes them (PARLEY_RATE_LIMIT_CONFIRM_MAILS_PER_SITE, 100). */
    confirmMailsPerSite: number;
    /** Sign-in codes mailed to one address per comment window (PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_ADDRESS, 5). */
    signInMailsPerAddress: number;
    /** Sign-in codes one client (an IPv4 address, an IPv6 /64) asks for per comment window (PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_CLIENT, 20). */
    signInMailsPerClient: number;
    /** Sign-in codes mailed per site per comment window (PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_SITE, 300). */
    signInMailsPerSite: number;
    /** Length of the key and IP limits' window (PARLEY_RATE_LIMIT_REQUEST_WINDOW, 1m; whole seconds). */
    requestWindowSeconds: number;
    /** Length of the comment limits' window (PARLEY_RATE_LIMIT_COMMENT_WINDOW, 1h; whole seconds). */
    commentWindowSeconds: number;
    /** Prefix of the counters' keys and of the change channel (`<prefix>:changes`) in Redis, so deployments sharing a Redis stay apart. */
    redisKeyPrefix: string;
    /**
     * Also send the IETF draft's RateLimit-Policy and RateLimit (PARLEY_RATE_LIMIT_DRAFT_HEADERS):
     * they name the policy that applied, but cost as much as the contract's three fields together.
     */
    draftHeaders: boolean;
  };
  /** The largest file POST /api/sites/:id/imports takes (PARLEY_IMPORT_MAX_SIZE, 512MiB); a larger one is refused with 413. */
  importMaxBytes: number;
  /**
   * The heap an import job's process may use (PARLEY_IMPORT_MAX_MEMORY, 512MiB; at least 64MiB),
   * given to it as --max-old-space-size: a job that needs more fails, saying so.
   */
  importMaxMemoryMib: number;
  /**
   * How long a queued or running import job holds without its instance renewing it
   * (PARLEY_IMPORT_LEASE, 60s; renewed every third of it): past it, the instance is taken to have
   * stopped, and the job is marked failed.
   */
  importLeaseMs: number;
  /** Failed staff sign-ins (docs/sign-in.md, "How staff sign-in is protected"); each limit counts per window, 0 turns it off. */
  loginLimits: {
    /**
     * Wrong passwords per email address before each further guess waits twice as long as the one
     * before, 1 s up to the window (PARLEY_LOGIN_ATTEMPTS_PER_ACCOUNT, 10); also the wrong passwords
     * per window from a device that has signed in as the person before. A success is not counted.
     */
    perAccount: number;
    /** Sign-in attempts per client IP (PARLEY_LOGIN_ATTEMPTS_PER_IP, 30); a success is not counted. */
    perIp: number;
    /** Length of the windows, and the longest wait (PARLEY_LOGIN_WINDOW, 15m; whole seconds). */
    windowSeconds: number;
  };
}

export interface MailConfig {
  /**
   * Where mail is handed over (PARLEY_SMTP_URL, e.g. smtps://user:pass@smtp.example.com:465), or
   * `log:` (LOG_TRANSPORT): written to the log instead, to try mail without an SMTP server.
   */
  smtpUrl: string;
  /** The sender's address (PARLEY_MAIL_FROM); the site's name is the sender's name. */
  from: string;
  /** The origin links in mails point at (PARLEY_PUBLIC_URL; default http://HOST:PORT). */
  publicUrl: string;
  /** Waits before each retry of a mail the server did not take (PARLEY_MAIL_RETRY_DELAYS, 1m,5m,30m,2h). */
  retryDelaysMs: number[];
  /** One handover to the SMTP server, connection included, must end within this (PARLEY_MAIL_TIMEOUT, 30s). */
  timeoutMs: number;
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

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(name: string, raw: string): number {
  if (raw.trim() === '0') return 0;
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(raw.trim());
  if (!match) throw new ConfigError(`${name} must be durations like 30s, 2m or 500ms, got "${raw}"`);
  return Number(match[1]) * UNITS[match[2]];
}

function durations(env: Env, name: string, fallback: string): number[] {
  const raw = env[name] || fallback;
  return raw.split(',').map((part) => parseDuration(name, part));
}

function positiveDuration(env: Env, name: string, fallback: string): number {
  const ms = parseDuration(name, env[name] || fallback);
  if (ms === 0) throw new ConfigError(`${name} must be above 0`);
  return ms;
}

function windowSeconds(env: Env, name: string, fallback: string): number {
  const ms = parseDuration(name, env[name] || fallback);
  if (ms < 1000 || ms % 1000 !== 0) throw new ConfigError(`${name} must be whole seconds (at least 1s), got "${env[name]}"`);
  return ms / 1000;
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
    if (bits !== undefined && Number(bits) === 0) {
      throw new ConfigError(`TRUST_PROXY must name the proxies; "${entry}" would believe X-Forwarded-For from anyone`);
    }
  }
  return entries;
}

/** Metrics tell a stranger how busy a site is: the token must not be guessable. */
function metricsToken(value: string | undefined): string | null {
  if (!value) return null;
  if (value.length < 16 || /\s/.test(value)) throw new ConfigError('PARLEY_METRICS_TOKEN must be at least 16 characters, without spaces');
  return value;
}

const HTTP_TIMEOUT_VARIABLES = {
  headersTimeoutMs: 'PARLEY_HTTP_HEADERS_TIMEOUT',
  requestTimeoutMs: 'PARLEY_HTTP_REQUEST_TIMEOUT',
  idleTimeoutMs: 'PARLEY_HTTP_IDLE_TIMEOUT',
  keepAliveTimeoutMs: 'PARLEY_HTTP_KEEP_ALIVE_TIMEOUT',
};

const SIZE_UNITS: Record<string, number> = { '': 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

/** A size in bytes, plain or with a binary unit: `65536`, `64KiB`, `512MiB`, `2GiB`. */
function size(env: Env, name: string, fallback: string): number {
  const raw = env[name] || fallback;
  const match = /^(\d+)(KiB|MiB|GiB)?$/.exec(raw.trim());
  if (!match || Number(match[1]) === 0) throw new ConfigError(`${name} must be a size above 0 like 65536, 64KiB, 512MiB or 2GiB, got "${raw}"`);
  return Number(match[1]) * SIZE_UNITS[match[2] ?? ''];
}

/** Less leaves an import's process too little to start in. */
const MIN_IMPORT_MEMORY_MIB = 64;

function importMaxMemoryMib(env: Env): number {
  const mib = Math.floor(size(env, 'PARLEY_IMPORT_MAX_MEMORY', '512MiB') / SIZE_UNITS.MiB);
  if (mib < MIN_IMPORT_MEMORY_MIB) throw new ConfigError(`PARLEY_IMPORT_MAX_MEMORY must be at least ${MIN_IMPORT_MEMORY_MIB}MiB, got "${env.PARLEY_IMPORT_MAX_MEMORY}"`);
  return mib;
}

function httpLimits(env: Env): Config['http'] {
  const limits = {
    headersTimeoutMs: durations(env, HTTP_TIMEOUT_VARIABLES.headersTimeoutMs, '10s')[0],
    requestTimeoutMs: durations(env, HTTP_TIMEOUT_VARIABLES.requestTimeoutMs, '30s')[0],
    idleTimeoutMs: durations(env, HTTP_TIMEOUT_VARIABLES.idleTimeoutMs, '60s')[0],
    keepAliveTimeoutMs: durations(env, HTTP_TIMEOUT_VARIABLES.keepAliveTimeoutMs, '10s')[0],
  };
  const zero = Object.entries(HTTP_TIMEOUT_VARIABLES).find(([limit]) => limits[limit as keyof typeof limits] === 0);
  if (zero) throw new ConfigError(`${zero[1]} must be above 0, got "${env[zero[1]]}"`);
  // Node refuses a headers time-out longer than the request time-out.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    const given = (name: string, fallback: string) => (env[name] ? `"${env[name]}"` : `${fallback} (the default)`);
    throw new ConfigError(
      `PARLEY_HTTP_HEADERS_TIMEOUT must not be longer than PARLEY_HTTP_REQUEST_TIMEOUT, got ${given('PARLEY_HTTP_HEADERS_TIMEOUT', '10s')} and ${given('PARLEY_HTTP_REQUEST_TIMEOUT', '30s')}`,
    );
  }
  return Object.freeze(limits);
}

/** PARLEY_SMTP_URL that writes each mail to the log, for development: nothing is delivered. */
export const LOG_TRANSPORT = 'log:';

function publicUrlOf(env: Env, host: string, port: number): string {
  const publicUrl = (env.PARLEY_PUBLIC_URL || `http://${host}:${port}`).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+$/.test(publicUrl)) throw new ConfigError(`PARLEY_PUBLIC_URL must be an origin like https://comments.example.com, got "${publicUrl}"`);
  return publicUrl;
}

/** Mail is on only with an SMTP server (or the log in its place); then a sender address is needed too. */
function mailConfig(env: Env, host: string, port: number): MailConfig | null {
  const smtpUrl = env.PARLEY_SMTP_URL;
  if (!smtpUrl) return null;
  if (smtpUrl !== LOG_TRANSPORT && !/^smtps?:\/\/[^/]/.test(smtpUrl)) throw new ConfigError(`PARLEY_SMTP_URL must start with smtp:// or smtps://, or be ${LOG_TRANSPORT} (mails written to the log, for development)`);
  const from = env.PARLEY_MAIL_FROM?.trim();
  if (!from || !/^[^\s@<>]+@[^\s@<>]+$/.test(from)) throw new ConfigError('PARLEY_MAIL_FROM must be an email address when PARLEY_SMTP_URL is set');
  return Object.freeze({
    smtpUrl,
    from,
    publicUrl: publicUrlOf(env, host, port),
    retryDelaysMs: durations(env, 'PARLEY_MAIL_RETRY_DELAYS', '1m,5m,30m,2h'),
    timeoutMs: positiveDuration(env, 'PARLEY_MAIL_TIMEOUT', '30s'),
  });
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`);
  }
  const port = integer(env, 'PORT', 3000);
  const host = env.HOST || '127.0.0.1';
  return Object.freeze({
    port,
    host,
    databaseUrl: databaseUrl(env.DATABASE_URL),
    databasePoolSize: integer(env, 'PARLEY_DATABASE_POOL_SIZE', 10, 1),
    databaseStatementTimeoutMs: integer(env, 'PARLEY_DATABASE_STATEMENT_TIMEOUT_MS', 10_000),
    databaseSsl: boolean(env, 'PARLEY_DATABASE_SSL', false),
    redisUrl: env.REDIS_URL || null,
    trustProxy: trustedProxies(env.TRUST_PROXY),
    logLevel,
    metricsToken: metricsToken(env.PARLEY_METRICS_TOKEN),
    shutdownDelayMs: durations(env, 'PARLEY_SHUTDOWN_DELAY', '0s')[0],
    http: httpLimits(env),
    mail: mailConfig(env, host, port),
    publicUrl: publicUrlOf(env, host, port),
    eraseGraceMs: durations(env, 'PARLEY_ERASE_GRACE', '7d')[0],
    webhookRetryDelaysMs: durations(env, 'PARLEY_WEBHOOK_RETRY_DELAYS', '30s,2m,10m'),
    webhookTimeoutMs: durations(env, 'PARLEY_WEBHOOK_TIMEOUT', '10s')[0],
    webhookAllowPrivate: boolean(env, 'PARLEY_WEBHOOK_ALLOW_PRIVATE', false),
    identityAllowPrivate: boolean(env, 'PARLEY_IDENTITY_ALLOW_PRIVATE', false),
    dashboardLocales: env.PARLEY_DASHBOARD_LOCALES || null,
    responseCacheMb: integer(env, 'PARLEY_RESPONSE_CACHE_MB', 32),
    subtreeCacheMb: integer(env, 'PARLEY_SUBTREE_CACHE_MB', 16),
    live: Object.freeze({
      maxStreams: integer(env, 'PARLEY_LIVE_MAX_STREAMS', 10_000),
      maxStreamsPerIp: integer(env, 'PARLEY_LIVE_MAX_STREAMS_PER_IP', 20),
      heartbeatMs: positiveDuration(env, 'PARLEY_LIVE_HEARTBEAT', '15s'),
      maxStreamAgeMs: positiveDuration(env, 'PARLEY_LIVE_MAX_STREAM_AGE', '30m'),
    }),
    rateLimits: Object.freeze({
      keyPerMinute: integer(env, 'PARLEY_RATE_LIMIT_KEY_PER_MINUTE', 1000),
      sessionCommentsPerHour: integer(env, 'PARLEY_RATE_LIMIT_SESSION_COMMENTS_PER_HOUR', 30),
      guestCommentsPerHour: integer(env, 'PARLEY_RATE_LIMIT_GUEST_COMMENTS_PER_HOUR', 5),
      guestVotesPerHour: integer(env, 'PARLEY_RATE_LIMIT_GUEST_VOTES_PER_HOUR', 60),
      ipPerMinute: integer(env, 'PARLEY_RATE_LIMIT_IP_PER_MINUTE', 600),
      confirmMailsPerReader: integer(env, 'PARLEY_RATE_LIMIT_CONFIRM_MAILS_PER_READER', 5),
      confirmMailsPerSite: integer(env, 'PARLEY_RATE_LIMIT_CONFIRM_MAILS_PER_SITE', 100),
      signInMailsPerAddress: integer(env, 'PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_ADDRESS', 5),
      signInMailsPerClient: integer(env, 'PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_CLIENT', 20),
      signInMailsPerSite: integer(env, 'PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_SITE', 300),
      requestWindowSeconds: windowSeconds(env, 'PARLEY_RATE_LIMIT_REQUEST_WINDOW', '1m'),
      commentWindowSeconds: windowSeconds(env, 'PARLEY_RATE_LIMIT_COMMENT_WINDOW', '1h'),
      redisKeyPrefix: env.PARLEY_RATE_LIMIT_REDIS_PREFIX || 'parley:ratelimit',
      draftHeaders: boolean(env, 'PARLEY_RATE_LIMIT_DRAFT_HEADERS', false),
    }),
    importMaxBytes: size(env, 'PARLEY_IMPORT_MAX_SIZE', '512MiB'),
    importMaxMemoryMib: importMaxMemoryMib(env),
    importLeaseMs: positiveDuration(env, 'PARLEY_IMPORT_LEASE', '60s'),
    loginLimits: Object.freeze({
      perAccount: integer(env, 'PARLEY_LOGIN_ATTEMPTS_PER_ACCOUNT', 10),
      perIp: integer(env, 'PARLEY_LOGIN_ATTEMPTS_PER_IP', 30),
      windowSeconds: windowSeconds(env, 'PARLEY_LOGIN_WINDOW', '15m'),
    }),
  });
}
