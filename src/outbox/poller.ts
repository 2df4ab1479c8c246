/**
 * The loop of an outbox worker (webhook deliveries, mails): `poll` claims and starts what is due.
 * It runs every `everyMs`, and at once on `kick` (a commit of this process queued something, or
 * attempts ended and there is room). A kick while a poll runs is remembered: whatever ended
 * meanwhile asked for one more. `stop` stops polling and waits for the poll under way.
 */
export interface Poller {
  kick(): void;
  stop(): Promise<void>;
}

export function startPoller(poll: () => Promise<void>, everyMs: number, onError: (error: unknown) => void): Poller {
  let stopping = false;
  let ticking: Promise<void> | null = null;
  let kickedWhileTicking = false;
  let timer: NodeJS.Timeout | undefined;

  function kick(): void {
    if (stopping) return;
    if (ticking) {
      kickedWhileTicking = true;
      return;
    }
    kickedWhileTicking = false;
    ticking = poll()
      .catch(onError)
      .finally(() => {
        ticking = null;
        if (kickedWhileTicking) kick();
      });
  }

  function loop(): void {
    kick();
    if (!stopping) timer = setTimeout(loop, everyMs);
  }
  loop();

  return {
    kick,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await ticking;
    },
  };
}
