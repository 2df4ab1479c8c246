import { execFileSync } from 'node:child_process';
import { request, type ClientRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startParley, startService, type Service } from './processes.ts';

/**
 * Live fan-out: N streams open on one instance, one comment posted, the time until each stream has
 * it (p50, p99, all) and the instance's peak RSS with those streams. The baseline is a bare Node
 * HTTP server writing one frame to the same number of streams (bench/live-baseline.js), measured in
 * the same run by the same clients.
 */
export interface LiveResult {
  service: string;
  streams: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  received: number;
  peakRssMb: number;
}

interface Streams {
  arrived: number[];
  close(): void;
}

/** Opens `count` streams; resolves once each has its first message (ready). */
async function openStreams(url: string, count: number, isEvent: (chunk: string) => boolean): Promise<Streams> {
  const arrived: number[] = [];
  const requests: ClientRequest[] = [];
  let ready = 0;
  await new Promise<void>((resolve, reject) => {
    for (let i = 0; i < count; i++) {
      const req = request(url, { agent: false }, (response) => {
        if (response.statusCode !== 200) return reject(new Error(`stream ${i} answered ${response.statusCode}`));
        response.setEncoding('utf8');
        let seenReady = false;
        response.on('data', (chunk: string) => {
          if (!seenReady && chunk.includes('"ready"')) {
            seenReady = true;
            if (++ready === count) resolve();
          }
          if (isEvent(chunk)) arrived.push(performance.now());
        });
      });
      req.on('error', () => undefined);
      req.end();
      requests.push(req);
    }
  });
  return { arrived, close: () => requests.forEach((req) => req.destroy()) };
}

async function fanOut(service: Service, streamUrl: string, count: number, fire: () => Promise<void>): Promise<LiveResult> {
  const streams = await openStreams(streamUrl, count, (chunk) => chunk.includes('comment.created'));
  service.resetPeakRss();
  const started = performance.now();
  await fire();
  const deadline = Date.now() + 10_000;
  while (streams.arrived.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  const delays = streams.arrived.map((at) => at - started).sort((a, b) => a - b);
  const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(delays.length * q))] ?? NaN;
  const result = { service: service.name, streams: count, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: delays.at(-1) ?? NaN, received: delays.length, peakRssMb: service.peakRssMb() };
  streams.close();
  return result;
}

export async function liveCases(count: number): Promise<LiveResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-live-bench-'));
  const databaseUrl = `sqlite:${join(dir, 'parley.db')}`;
  const parley = await startParley({
    DATABASE_URL: databaseUrl,
    PARLEY_LIVE_MAX_STREAMS_PER_IP: String(count + 10),
    PARLEY_LIVE_MAX_STREAMS: String(count + 10),
    PARLEY_RATE_LIMIT_IP_PER_MINUTE: '0',
    PARLEY_RATE_LIMIT_KEY_PER_MINUTE: '0',
  });
  const baselinePort = await freePort();
  const baseline = await startService('baseline', ['bench/live-baseline.js', String(baselinePort)], {}, baselinePort);
  try {
    const { site_id: siteId, api_key: apiKey } = bootstrapSite(databaseUrl);
    const thread = 'https://bench.example.com/live';
    const streamUrl = `${parley.url}/v1/comments/stream?site_id=${siteId}&thread_url=${encodeURIComponent(thread)}`;
    const results = [
      await fanOut(baseline, `${baseline.url}/stream`, count, async () => void (await fetch(`${baseline.url}/fire`, { method: 'POST' }))),
      await fanOut(parley, streamUrl, count, async () => {
        const posted = await fetch(`${parley.url}/v1/comments`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ site_id: siteId, thread_url: thread, content: 'x'.repeat(200) }),
        });
        if (posted.status !== 201) throw new Error(`posting answered ${posted.status}`);
      }),
    ];
    return results;
  } finally {
    await baseline.stop();
    await parley.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A site and its admin key, made with the CLI on the instance's database while it runs. */
function bootstrapSite(databaseUrl: string): { site_id: string; api_key: string } {
  const out = execFileSync(process.execPath, ['bin/parley.js', 'bootstrap', '--site-name', 'Live bench', '--json'], { env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: 'utf8' });
  return JSON.parse(out);
}
