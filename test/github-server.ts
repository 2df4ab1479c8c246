import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A GitHub user as the fixture's APIs describe them. */
export interface GithubUser {
  id: number;
  login: string;
  name?: string | null;
  avatar_url?: string;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

export interface TestGithubServer {
  /** http://127.0.0.1:<port>: a GitHub Enterprise Server's base URL, the provider's `issuer`. */
  url: string;
  clientId: string;
  clientSecret: string;
  /**
   * Plays the reader approving the app on the authorization page (as `user`): from the
   * authorization URL (the Location of Parley's start) to the URL GitHub sends the reader back to.
   */
  approve(authorizationUrl: string, user: GithubUser): Promise<URL>;
  close(): Promise<void>;
}

interface Grant {
  user: GithubUser;
  redirectUri: string;
  challenge: string;
}

async function formOf(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString());
}

/**
 * A GitHub-Enterprise-shaped OAuth server on 127.0.0.1: its authorization page (GET shows it, POST
 * approves), its token endpoint (checking the client secret, the redirect URI and the PKCE verifier,
 * and answering a refusal as GitHub does: 200 with an error), `/api/v3/user` and
 * `/api/v3/user/emails` (401 without a token). Codes and tokens work once.
 */
export async function startGithubServer(): Promise<TestGithubServer> {
  const clientId = 'Iv1.parleytest';
  const clientSecret = 'github-test-client-secret-0123456789';
  const codes = new Map<string, Grant>();
  const tokens = new Map<string, GithubUser>();
  const pendingApprovals = new Map<string, GithubUser>();

  const server = createServer(async (request, response) => {
    const url = new URL(request.url!, 'http://github.test');
    const send = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/login/oauth/authorize') {
      if (url.searchParams.get('client_id') !== clientId) return response.writeHead(404).end('Not Found');
      if (request.method === 'GET') return response.writeHead(200, { 'content-type': 'text/html' }).end('<form method="post"><button>Authorize</button></form>');
      const approval = (await formOf(request)).get('approval') ?? '';
      const user = pendingApprovals.get(approval);
      pendingApprovals.delete(approval);
      const back = new URL(url.searchParams.get('redirect_uri')!);
      const challenge = url.searchParams.get('code_challenge');
      if (!user || !challenge || url.searchParams.get('code_challenge_method') !== 'S256') {
        back.search = new URLSearchParams({ error: 'access_denied', state: url.searchParams.get('state') ?? '' }).toString();
      } else {
        const code = randomBytes(10).toString('hex');
        codes.set(code, { user, redirectUri: back.href, challenge });
        back.search = new URLSearchParams({ code, state: url.searchParams.get('state') ?? '' }).toString();
      }
      return response.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/login/oauth/access_token' && request.method === 'POST') {
      const form = await formOf(request);
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) return send(200, { error: 'incorrect_client_credentials' });
      const verifier = form.get('code_verifier') ?? '';
      if (!grant || grant.redirectUri !== form.get('redirect_uri') || createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) {
        return send(200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
      }
      const token = `gho_${randomBytes(16).toString('hex')}`;
      tokens.set(token, grant.user);
      return send(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    if (url.pathname === '/api/v3/user' || url.pathname === '/api/v3/user/emails') {
      const user = tokens.get((request.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!user || !request.headers['user-agent']) return send(401, { message: 'Requires authentication' });
      const { emails, ...profile } = user;
      return send(200, url.pathname.endsWith('/emails') ? emails : profile);
    }
    send(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function approve(authorizationUrl: string, user: GithubUser): Promise<URL> {
    const page = await fetch(authorizationUrl);
    if (page.status !== 200) throw new Error(`the authorization page answered ${page.status}`);
    const approval = randomBytes(8).toString('hex');
    pendingApprovals.set(approval, user);
    const answer = await fetch(authorizationUrl, { method: 'POST', body: new URLSearchParams({ approval }), redirect: 'manual' });
    return new URL(answer.headers.get('location')!);
  }

  return { url: base, clientId, clientSecret, approve, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
