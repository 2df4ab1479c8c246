import { solveChallenge } from 'altcha-lib/v1';

/** What GET /v1/widget gives a guest (src/widget/routes.ts): sent back with each comment. */
export interface GuestFormSettings {
  token: string;
  min_submit_seconds: number;
  challenge: { algorithm: string; challenge: string; maxnumber?: number; salt: string; signature: string } | null;
}

/** A challenge is good for an hour on the server; one older than this is replaced before solving. */
const CHALLENGE_KEPT_MS = 50 * 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The fields a guest's comment carries for the spam checks (src/spam): the form token the page was
 * given, the hidden field as the reader left it, and a proof of work where the site asks for one.
 * A comment written faster than the site's minimum is sent once the minimum has passed, so a quick
 * reader is never held for it. Each challenge serves one comment; the next one is fetched with
 * `refresh` (the token stays: it tells when the page was loaded).
 */
export class GuestForm {
  readonly #token: string;
  readonly #sendAfter: number;
  #challenge: GuestFormSettings['challenge'];
  #challengeAt: number;

  constructor(
    settings: GuestFormSettings,
    private readonly refresh: () => Promise<GuestFormSettings | null>,
  ) {
    this.#token = settings.token;
    this.#sendAfter = performance.now() + settings.min_submit_seconds * 1000;
    this.#challenge = settings.challenge;
    this.#challengeAt = performance.now();
  }

  async fields(website: string): Promise<Record<string, string>> {
    const wait = this.#sendAfter - performance.now();
    if (wait > 0) await sleep(wait);
    const fields: Record<string, string> = { form_token: this.#token };
    if (website) fields.website = website;
    const proof = await this.#proof();
    if (proof) fields.altcha = proof;
    return fields;
  }

  async #proof(): Promise<string | null> {
    if (this.#challenge === null || performance.now() - this.#challengeAt > CHALLENGE_KEPT_MS) {
      const fresh = await this.refresh();
      this.#challenge = fresh?.challenge ?? null;
      this.#challengeAt = performance.now();
    }
    const challenge = this.#challenge;
    if (challenge === null) return null;
    this.#challenge = null;
    const started = performance.now();
    const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise;
    // The reader waits this long after pressing Post; the browser test holds it to a phone's budget.
    performance.measure('parley:proof', { start: started, duration: performance.now() - started });
    if (solution === null) return null;
    const { algorithm, salt, signature } = challenge;
    return btoa(JSON.stringify({ algorithm, challenge: challenge.challenge, number: solution.number, salt, signature }));
  }
}
