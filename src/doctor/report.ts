export type Level = 'ok' | 'warn' | 'fail';

/** One finding of `parley doctor`: what was checked, and what was found, in words. */
export interface CheckResult {
  level: Level;
  subject: string;
  text: string;
}

/** One line per finding, the level first so that `grep ^fail` finds the problems; then a count. */
export function describeResults(results: CheckResult[]): string {
  const lines = results.map(({ level, subject, text }) => `${level.padEnd(4)}  ${subject}: ${text}`);
  const count = (level: Level) => results.filter((result) => result.level === level).length;
  const [failed, warned] = [count('fail'), count('warn')];
  const summary = failed === 0 && warned === 0 ? 'everything checked is ok' : `${failed} failed, ${warned} warning${warned === 1 ? '' : 's'}`;
  return `${lines.join('\n')}\n${summary}\n`;
}

/** A URL as it may be printed: its password replaced. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.href;
  } catch {
    return url;
  }
}
