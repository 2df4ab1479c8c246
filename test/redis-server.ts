import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** The machine's shared Redis: tests only touch keys and channels of their own there. */
export const SHARED_REDIS_URL = process.env.PARLEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A Redis of the test's own, which it may kill: the shared one is never stopped. */
export async function startOwnRedis(port: number): Promise<ChildProcess> {
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    redis.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
    redis.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) resolve();
    });
  });
  return redis;
}

export async function stopRedis(redis: ChildProcess): Promise<void> {
  if (redis.exitCode !== null || redis.signalCode !== null) return;
  const exited = new Promise((resolve) => redis.once('exit', resolve));
  redis.kill('SIGKILL');
  await exited;
}
