/**
 * When a failed attempt is tried again: its schedule's delay after the END of the attempt (a slow
 * failure does not eat into the wait), or null once the schedule (counted from the last requeue) is
 * used up. Webhook deliveries and mails follow it alike.
 */
export function retryAt(attempt: { at: string; duration_ms: number }, runAttempts: number, delaysMs: readonly number[]): string | null {
  const delay = delaysMs[runAttempts];
  if (delay === undefined) return null;
  return new Date(Date.parse(attempt.at) + attempt.duration_ms + delay).toISOString();
}
