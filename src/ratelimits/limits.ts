import proxyAddr from '@fastify/proxy-addr';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { RateLimiterRes } from 'rate-limiter-flexible';
import BlockedKeys from 'rate-limiter-flexible/lib/component/BlockedKeys/BlockedKeys.js';
import type { Caller } from '../auth/caller.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import type { Tally } from '../metrics/tally.ts';
import { openCounters } from './counters.ts';
import { chargeFor, policiesOf, type Charge, type Policy } from './policies.ts';

interface Counted extends Charge {
  windowEndsAt: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The comment-limit count this request took: if it creates nothing, given back and counted under `failure` instead. */
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

/**
 * X-RateLimit-* as the specification names them, and with `draft` the IETF draft's RateLimit-Policy
 * and RateLimit. `now` is the caller's clock reading, so one request reads the clock once.
 */
function setHeaders(reply: FastifyReply, policy: Policy, state: RateLimiterRes, now: number, draft: boolean): void {
  reply.header('x-ratelimit-limit', policy.fields.limit);
  reply.header('x-ratelimit-remaining', String(state.remainingPoints));
  reply.header('x-ratelimit-reset', policy.fields.reset(now + state.msBeforeNext));
  if (!draft) return;
  const secondsLeft = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  reply.header('ratelimit-policy', policy.fields.policy);
  reply.header('ratelimit', `${policy.fields.stateStart}${state.remainingPoints};t=${secondsLeft}`);
}

/** A count from Redis past the limit rejects with the state; any other failure stays one. */
function pastTheLimit(outcome: unknown): RateLimiterRes {
  if (outcome instanceof RateLimiterRes) return outcome;
  throw outcome;
}

function hooksOf(hooks: onSendHookHandler | onSendHookHandler[] | undefined): onSendHookHandler[] {
  if (!hooks) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/** The request's check; a promise only when it waits for Redis. It throws (or rejects) with a 429. */
export type Admit = (request: FastifyRequest, reply: FastifyReply, caller: Caller | null) => Promise<void> | void;

/**
 * Sets up the rate limits of the configuration (each refusal counted in `refusals` by policy) and returns the check each request passes once its
 * caller is known. The check never fails a request for its own troubles: a counter that cannot be
 * reached lets the request through, logged.
 */
export async function registerRateLimits(app: FastifyInstance, config: Config, refusals: Tally): Promise<Admit> {
  const policies = policiesOf(config.rateLimits);
  const counters = await openCounters(config, [...policies.values()], app.log);
  app.addHook('onClose', () => counters.close());
  app.decorateRequest('rateLimitRefund', null);
  const { draftHeaders } = config.rateLimits;

  // Clients whose IP limit this process has seen used up, until their window ends. A comment creation
  // counts under that limit only when it fails, so it is checked against this rather than counted:
  // the check costs no count, and a flood of refused posts ends in 429s like any other requests.
  const spent = new BlockedKeys();
  const noteIfSpent = ({ policy, subject }: Charge, state: RateLimiterRes) => {
    if (policy.name === 'ip' && state.remainingPoints === 0) spent.addMs(subject, state.msBeforeNext);
  };

  // A failed creation's count moves from its comment limit to its IP limit; the answer's fields are
  // then the IP limit's, the one it counted against.
  const countFailure = async (request: FastifyRequest, reply: FastifyReply, { policy, subject, failure, windowEndsAt }: Counted) => {
    try {
      const givenBack = Date.now() < windowEndsAt ? counters.giveBack(policy, subject) : null;
      if (failure === null) {
        if (givenBack) setHeaders(reply, policy, await givenBack, Date.now(), draftHeaders);
        return;
      }
      const [state] = await Promise.all([Promise.resolve(counters.take(failure.policy, failure.subject)).catch(pastTheLimit), givenBack]);
      noteIfSpent(failure, state);
      setHeaders(reply, failure.policy, state, Date.now(), draftHeaders);
    } catch (err) {
      request.log.error({ err }, 'rate limit count of a failed comment creation failed');
    }
  };
  // Only comment creation and guest votes count what a request makes, and move the count when it makes
  // nothing, so only their routes carry the hook: every other response goes without it. A callback rather than an
  // async hook: it almost always has nothing to do, and then it should cost no promise.
  const countIfFailed: onSendHookHandler = (request, reply, payload, done) => {
    const counted = request.rateLimitRefund;
    if (!counted || reply.statusCode < 400) return done(null, payload);
    void countFailure(request, reply, counted).then(() => done(null, payload));
  };
  if ([...policies.values()].some((policy) => policy.refundsFailures)) {
    app.addHook('onRoute', (route) => {
      if (route.config?.commentCreation || route.config?.guestVote) route.onSend = [...hooksOf(route.onSend), countIfFailed];
    });
  }

  const admitted = (request: FastifyRequest, reply: FastifyReply, { policy, subject, failure }: Charge, state: RateLimiterRes) => {
    const now = Date.now();
    setHeaders(reply, policy, state, now, draftHeaders);
    if (policy.refundsFailures) request.rateLimitRefund = { policy, subject, failure, windowEndsAt: now + state.msBeforeNext };
  };
  const refused = (request: FastifyRequest, reply: FastifyReply, charge: Charge, outcome: unknown) => {
    if (!(outcome instanceof RateLimiterRes)) {
      request.log.error({ err: outcome }, 'rate limit unavailable; request let through');
      return;
    }
    const { policy } = charge;
    refusals.add(policy.name);
    noteIfSpent(charge, outcome);
    setHeaders(reply, policy, outcome, Date.now(), draftHeaders);
    const retryAfter = Math.max(1, Math.ceil(outcome.msBeforeNext / 1000));
    reply.header('retry-after', retryAfter);
    throw new AppError('rate_limited', `Limit of ${policy.limit} per ${policy.windowSeconds} s reached (${policy.name}); retry in ${retryAfter} s`);
  };
  // Runs on every request: in process with no promise; with Redis, its promise and one then().
  const count = (request: FastifyRequest, reply: FastifyReply, charge: Charge) => {
    const counted = counters.take(charge.policy, charge.subject);
    if (counted instanceof Promise) {
      return counted.then(
        (state) => admitted(request, reply, charge, state),
        (outcome: unknown) => refused(request, reply, charge, outcome),
      );
    }
    return counted.consumedPoints <= charge.policy.limit ? admitted(request, reply, charge, counted) : refused(request, reply, charge, counted);
  };
  const check = (request: FastifyRequest, reply: FastifyReply, caller: Caller | null, ip: string) => {
    const charge = chargeFor(request, caller, policies, ip);
    if (!charge) return undefined;
    if (charge.failure) {
      const msLeft = spent.msBeforeExpire(charge.failure.subject);
      if (msLeft > 0) refused(request, reply, charge.failure, new RateLimiterRes(0, msLeft));
    }
    return count(request, reply, charge);
  };
  const trusted = proxyAddr.compile(config.trustProxy);
  app.decorate('admitUnrouted', async (request: FastifyRequest, reply: FastifyReply) => check(request, reply, null, proxyAddr(request.raw, trusted)));
  return (request, reply, caller) => check(request, reply, caller, request.ip);
}
