// rate-limiter-flexible's in-process store, which RateLimiterMemory counts in behind a promise. The
// package declares no types for it; this is the one method Parley calls.
declare module 'rate-limiter-flexible/lib/component/MemoryStorage/MemoryStorage.js' {
  import type { RateLimiterRes } from 'rate-limiter-flexible';

  export default class MemoryStorage {
    /**
     * Adds `value` to the key's count, starting a window of `durationSec` when it has none. The
     * answer's remaining count is left for the caller to set, as RateLimiterMemory does.
     */
    incrby(key: string, value: number, durationSec: number): RateLimiterRes & { remainingPoints: number };
  }
}
