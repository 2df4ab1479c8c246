import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { openSignInLimiter, WRONG_CODES_PER_CLIENT, type SignInLimiter } from './sign-in-mails.ts';

const opened: SignInLimiter[] = [];
afterEach(() => opened.splice(0).forEach((limiter) => limiter.close()));

async function limiter(perAddress: number, perClient: number, perSite: number): Promise<SignInLimiter> {
  const config = loadConfig({
    DATABASE_URL: 'sqlite::memory:',
    PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_ADDRESS: String(perAddress),
    PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_CLIENT: String(perClient),
    PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_SITE: String(perSite),
  });
  const opening = await openSignInLimiter(config, pino({ level: 'silent' }));
  opened.push(opening);
  return opening;
}

const refusal = (promise: Promise<unknown>) => promise.then(() => null, (error: { code: string; message: string; retryAfterSeconds: number }) => error);

describe('the sign-in mail limits', () => {
  it("count the client first: a client past its limit spends nothing of an address's or the site's", async () => {
    const limits = await limiter(1, 1, 2);
    await limits.mail('site_a', 'one@example.com', '192.0.2.1');
    const client = await refusal(limits.mail('site_a', 'two@example.com', '192.0.2.1'));
    expect(client).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('from this network'), retryAfterSeconds: expect.any(Number) });
    // two@ and the site's second mail were not spent by the refused request.
    await limits.mail('site_a', 'two@example.com', '192.0.2.2');
    expect(await refusal(limits.mail('site_a', 'three@example.com', '192.0.2.3'))).toMatchObject({ message: expect.stringContaining('on this site') });
  });

  it('count an address across sites, and before the site', async () => {
    const limits = await limiter(1, 10, 10);
    await limits.mail('site_a', 'bombed@example.com', '192.0.2.1');
    expect(await refusal(limits.mail('site_b', 'bombed@example.com', '192.0.2.2'))).toMatchObject({ message: expect.stringContaining('this address') });
    await limits.mail('site_b', 'other@example.com', '192.0.2.2');
  });

  it('are off at 0', async () => {
    const limits = await limiter(0, 0, 0);
    for (let i = 0; i < 50; i++) await limits.mail('site_a', 'same@example.com', '192.0.2.1');
  });

  it('count wrong codes per client, and give a right one back', async () => {
    const limits = await limiter(1, 1, 1);
    for (let i = 0; i < WRONG_CODES_PER_CLIENT - 1; i++) await limits.attempt('192.0.2.9');
    const right = await limits.attempt('192.0.2.9');
    await right.right();
    await limits.attempt('192.0.2.9');
    expect(await refusal(limits.attempt('192.0.2.9'))).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('wrong sign-in codes') });
    await limits.attempt('192.0.2.10');
  });
});
