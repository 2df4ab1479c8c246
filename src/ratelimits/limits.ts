import proxyAddr from '@fastify/proxy-addr';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Caller } from '../auth/caller.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { openCounters } from './counters.ts';
import { chargeFor, policiesOf, type Charge, type Policy } from './policies.ts';

interface Counted extends Charge {
  windowEndsAt: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The comment-limit count this request took, to give back if it creates nothing. */
    rateLimitRefund: Counted | null;
  }
  interface FastifyInstance {
    /**
     * The check for a request answered before routing (a path that cannot be decoded): no hook runs
     * for it, and its request object does not apply TRUST_PROXY, so the client IP is worked out here.
     */
    admitUnrouted(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  }
}

/** X-RateLimit-* as the specification names them, and the IETF draft's RateLimit-Policy / RateLimit. */
function setHeaders(reply: FastifyReply, policy: Policy, state: RateLimiterRes): void {
  const secondsLeft = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  reply.header('X-RateLimit-Limit', policy.limit);
  reply.header('X-RateLimit-Remaining', state.remainingPoints);
  reply.header('X-RateLimit-Reset', Math.ceil((Date.now() + state.msBeforeNext) / 1000));
  reply.header('RateLimit-Policy', `"${policy.name}";q=${policy.limit};w=${policy.windowSeconds}`);
  reply.header('RateLimit', `"${policy.name}";r=${state.remainingPoints};t=${secondsLeft}`);
}

export type Admit = (request: FastifyRequest, reply: FastifyReply, caller: Caller | null) => Promise<void>;

/**
 * Sets up the rate limits of the configuration and returns the check each request passes once its
 * caller is known. The check never fails a request for its own troubles: a counter that cannot be
 * reached lets the request through, logged.
 */
export async function registerRateLimits(app: FastifyInstance, config: Config): Promise<Admit> {
  const policies = policiesOf(config.rateLimits);
  const counters = await openCounters(config, [...policies.values()], app.log);
  app.addHook('onClose', () => counters.close());
  app.decorateRequest('rateLimitRefund', null);

  app.addHook('onSend', async (request, reply, payload) => {
    const counted = request.rateLimitRefund;
    if (counted && reply.statusCode >= 400 && Date.now() < counted.windowEndsAt) {
      try {
        setHeaders(reply, counted.policy, await counters.limiterOf(counted.policy).reward(counted.subject));
      } catch (err) {
        request.log.error({ err }, 'rate limit refund failed');
      }
    }
    return payload;
  });

  const check = async (request: FastifyRequest, reply: FastifyReply, caller: Caller | null, ip: string) => {
    const charge = chargeFor(request, caller, policies, ip);
    if (!charge) return;
    const { policy, subject } = charge;
    let state: RateLimiterRes;
    let allowed = true;
    try {
      state = await counters.limiterOf(policy).consume(subject);
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) {
        request.log.error({ err: outcome }, 'rate limit unavailable; request let through');
        return;
      }
      state = outcome;
      allowed = false;
    }
    setHeaders(reply, policy, state);
    if (!allowed) {
      const retryAfter = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
      reply.header('Retry-After', retryAfter);
      throw new AppError('rate_limited', `Limit of ${policy.limit} per ${policy.windowSeconds} s reached (${policy.name}); retry in ${retryAfter} s`);
    }
    if (policy.refundsFailures) request.rateLimitRefund = { policy, subject, windowEndsAt: Date.now() + state.msBeforeNext };
  };
  const trusted = proxyAddr.compile(config.trustProxy);
  app.decorate('admitUnrouted', (request: FastifyRequest, reply: FastifyReply) => check(request, reply, null, proxyAddr(request.raw, trusted)));
  return (request, reply, caller) => check(request, reply, caller, request.ip);
}
