/**
 * Lower bound of the Wilson score interval (95 %) for the share of up votes: ranks a 5/0 comment
 * below a 50/2 one, which a plain ratio would not. Stored per comment so `sort=best` is an index scan.
 */
export function wilsonLowerBound(up: number, down: number): number {
  const n = up + down;
  if (n === 0) return 0;
  const z = 1.959964;
  const p = up / n;
  return (p + (z * z) / (2 * n) - z * Math.sqrt((p * (1 - p) + (z * z) / (4 * n)) / n)) / (1 + (z * z) / n);
}
