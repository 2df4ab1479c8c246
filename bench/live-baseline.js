// The stack's own limit for live fan-out: a bare Node HTTP server holding SSE streams and writing
// one frame to all of them when POST /fire arrives. Run by bench/live.ts beside Parley.
import { createServer } from 'node:http';

const streams = new Set();
const server = createServer((request, response) => {
  if (request.url === '/healthz') return response.end('ok');
  if (request.method === 'POST' && request.url === '/fire') {
    const frame = `id: 1\ndata: ${JSON.stringify({ type: 'comment.created', comment: { id: 'cmt_baseline', content: 'x'.repeat(200) } })}\n\n`;
    for (const stream of streams) stream.write(frame);
    return response.end('fired');
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.write('id: 0\ndata: {"type":"ready"}\n\n');
  streams.add(response);
  request.on('close', () => streams.delete(response));
});
server.listen(Number(process.argv[2]), '127.0.0.1');
