import { AppError } from '../errors.ts';
import type { Site } from '../sites/repository.ts';

const UNITS: Array<[seconds: number, one: string, many: string]> = [
  [86_400, 'day', 'days'],
  [3_600, 'hour', 'hours'],
  [60, 'minute', 'minutes'],
  [1, 'second', 'seconds'],
];

/** "15 minutes", "1 hour", "90 seconds": the largest unit that divides the window. */
function spoken(seconds: number): string {
  const [size, one, many] = UNITS.find(([unit]) => seconds % unit === 0)!;
  const count = seconds / size;
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * An author may edit their comment for the site's edit window after posting it (null: always; 0:
 * never). Moderators are never limited; callers check that before asking.
 */
export function assertEditWindowOpen(site: Pick<Site, 'editWindowSeconds'>, createdAt: string, now: number): void {
  const window = site.editWindowSeconds;
  if (window === null) return;
  if (window === 0) throw new AppError('edit_window_closed', 'Authors cannot edit their comments on this site');
  const closesAt = Date.parse(createdAt) + window * 1000;
  if (now < closesAt) return;
  throw new AppError('edit_window_closed', `Comments on this site can be edited for ${spoken(window)} after they are posted; this one's edit window closed at ${new Date(closesAt).toISOString()}`);
}
