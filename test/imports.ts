import type { ApiResponse } from './helper.ts';
import { sleep } from './receiver.ts';

interface Server {
  url: string;
}

async function answer(response: Response): Promise<ApiResponse> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, headers: response.headers, body };
}

/** POST /api/sites/:id/imports with `file` as the body, as curl --data-binary sends it. */
export async function uploadImport(
  parley: Server,
  siteId: string,
  token: string | undefined,
  file: Buffer | string | ReadableStream<Uint8Array>,
  query = '',
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const streamed = file instanceof ReadableStream;
  const response = await fetch(`${parley.url}/api/sites/${siteId}/imports${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', ...(token && { authorization: `Bearer ${token}` }), ...headers },
    body: file,
    ...(streamed && { duplex: 'half' }),
  } as RequestInit);
  return answer(response);
}

/** GET with a key, as the dashboard reads a job or an export. */
export async function getWith(parley: Server, path: string, token: string): Promise<ApiResponse> {
  return answer(await fetch(parley.url + path, { headers: { authorization: `Bearer ${token}` } }));
}

/** Polls an import job until it has completed or failed; answers it. */
export async function finishedImport(parley: Server, siteId: string, token: string, jobId: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await getWith(parley, `/api/sites/${siteId}/imports/${jobId}`, token);
    if (job.status !== 200) throw new Error(`reading import ${jobId}: ${job.status} ${JSON.stringify(job.body)}`);
    if (job.body.status === 'completed' || job.body.status === 'failed') return job.body;
    if (Date.now() > deadline) throw new Error(`import ${jobId} still ${job.body.status} after ${timeoutMs} ms`);
    await sleep(50);
  }
}
