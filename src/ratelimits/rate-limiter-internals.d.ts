// Parts of rate-limiter-flexible that Parley uses directly and the package declares no types for;
// only the methods Parley calls.
declare module 'rate-limiter-flexible/lib/component/MemoryStorage/MemoryStorage.js' {
  import type { RateLimiterRes } from 'rate-limiter-flexible';

  /** The in-process store, which RateLimiterMemory counts in behind a promise. */
  export default class MemoryStorage {
    /**
     * Adds `value` to the key's count, starting a window of `durationSec` when it has none. The
     * answer's remaining count is left for the caller to set, as RateLimiterMemory does.
     */
    incrby(key: string, value: number, durationSec: number): RateLimiterRes & { remainingPoints: number };
  }
}

declare module 'rate-limiter-flexible/lib/component/BlockedKeys/BlockedKeys.js' {
  /** Keys refused until a time, which the Redis limiters keep in process; expired ones are swept as keys are added. */
  export default class BlockedKeys {
    /** Refuses the key for `ms` from now. */
    addMs(key: string, ms: number): void;
    /** How long the key is still refused; 0 when it is not. */
    msBeforeExpire(key: string): number;
  }
}
