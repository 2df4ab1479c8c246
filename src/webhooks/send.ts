import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveTarget, TargetError, type ResolvedTarget } from './address.ts';
import { standardSignature } from './secret.ts';
import { signatureOf } from '@parley/webhooks';

export interface AttemptRecord {
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export interface Outgoing {
  deliveryId: string;
  event: string;
  body: string;
}

/** One HTTP request of a delivery: a signed webhook POST, or a chat service's own request (src/alerts). */
export interface DeliveryRequest {
  method: 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/** A webhook delivery: the specification's headers, literally, and the Standard Webhooks ones beside them. */
export function signedWebhook(url: string, secret: string, outgoing: Outgoing): DeliveryRequest {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    method: 'POST',
    url,
    headers: {
      'Content-Type': 'application/json',
      'X-Service-Signature': signatureOf(outgoing.body, secret),
      'X-Service-Event': outgoing.event,
      'X-Service-Delivery': outgoing.deliveryId,
      'webhook-id': outgoing.deliveryId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': standardSignature(secret, outgoing.deliveryId, timestamp, outgoing.body),
    },
    body: outgoing.body,
  };
}

/** Connects to the address that was checked, never to a second answer of the resolver. */
function pinnedLookup(target: ResolvedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
}

/** An idle connection is closed before a receiver's own keep-alive time-out (Node's is 5 s) would. */
const IDLE_SOCKET_MS = 4_000;
/** Agents kept at once; past that, one without a request under way is dropped. */
const MAX_AGENTS = 256;
const agents = new Map<string, HttpAgent>();

/**
 * A keep-alive agent for one receiver at one checked address. Keyed by that address, so a connection
 * opened to it is only ever reused for attempts whose own DNS check gave the same address.
 */
function agentFor(url: URL, target: ResolvedTarget): HttpAgent {
  const key = `${url.protocol}//${url.host}@${target.address}`;
  let agent = agents.get(key);
  if (agent) return agent;
  if (agents.size >= MAX_AGENTS) {
    for (const [oldKey, old] of agents) {
      if (Object.keys(old.sockets).length > 0) continue;
      old.destroy();
      agents.delete(oldKey);
      break;
    }
  }
  const options = { keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const };
  agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
  agents.set(key, agent);
  return agent;
}

function sendOn(method: DeliveryRequest['method'], url: URL, target: ResolvedTarget, headers: Record<string, string>, body: string, signal: AbortSignal): [ClientRequest, Promise<number>] {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  let req!: ClientRequest;
  const status = new Promise<number>((resolve, reject) => {
    req = send(url, { method, headers, lookup: pinnedLookup(target), agent: agentFor(url, target), signal }, (response: IncomingMessage) => {
      response.on('error', reject);
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.resume();
    });
    req.on('error', reject);
    req.end(body);
  });
  return [req, status];
}

/**
 * Sends once, follows no redirect, and resolves with the status once the answer has been read. A
 * kept-alive connection the receiver closed just as it was reused fails before anything was read:
 * that one is tried again on a new connection.
 */
async function send(method: DeliveryRequest['method'], url: URL, target: ResolvedTarget, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<number> {
  const [req, status] = sendOn(method, url, target, headers, body, signal);
  try {
    return await status;
  } catch (error) {
    if (!req.reusedSocket || signal.aborted || (error as NodeJS.ErrnoException).code !== 'ECONNRESET') throw error;
    return sendOn(method, url, target, headers, body, signal)[1];
  }
}

/** Attempt errors are stable codes, so a log reader can filter on them. */
function failure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'timeout';
  if (error instanceof TargetError) return error.code;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection_reset';
  if (/CERT|SSL|TLS/.test(code)) return 'tls_error';
  return 'connection_failed';
}

function outcomeOf(status: number): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return 'redirect_not_followed';
  return 'unexpected_status';
}

/**
 * One delivery attempt: resolve the host and refuse non-public addresses (every attempt, since DNS
 * answers change), then send to that very address. The time-out bounds the whole attempt.
 */
export async function sendOnce(request: DeliveryRequest, options: SendOptions): Promise<AttemptRecord> {
  const started = Date.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const timedOut = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(new Error('timeout'))));
  timedOut.catch(() => undefined);
  let status: number | null = null;
  let error: string | null;
  try {
    const target = new URL(request.url);
    const resolved = await Promise.race([resolveTarget(target.hostname, options.allowPrivate), timedOut]);
    const headers = { ...request.headers, Host: target.host, 'Content-Length': String(Buffer.byteLength(request.body)) };
    status = await send(request.method, target, resolved, headers, request.body, controller.signal);
    error = outcomeOf(status);
  } catch (caught) {
    error = failure(caught, controller.signal);
  } finally {
    clearTimeout(timer);
  }
  return { at: new Date(started).toISOString(), status_code: status, duration_ms: Date.now() - started, error };
}
