import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';

/**
 * A client that sends what fetch refuses to: repeated headers, bytes that are not UTF-8, paths with
 * stray percent signs. Hostile input has to reach the server as a hostile client would send it.
 */
export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export function send(baseUrl: string, raw: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const headers: OutgoingHttpHeaders = { ...raw.headers };
  if (raw.body !== undefined) headers['content-length'] = Buffer.byteLength(raw.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: raw.method, path: raw.path, headers, agent: false, timeout: 20_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer to ${raw.method} ${raw.path} in 20 s`)));
    req.on('error', reject);
    req.end(raw.body);
  });
}

/** Encodes a path segment or query value, keeping lone surrogates as the bytes a client would send. */
export function encodeLoosely(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    // encodeURIComponent throws on lone surrogates; send them as their (invalid) UTF-8 bytes.
    return [...value]
      .map((ch) => (/[A-Za-z0-9_.~-]/.test(ch) ? ch : [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('')))
      .join('')
      .replace(/%EF%BF%BD/g, '%ED%A0%80');
  }
}
