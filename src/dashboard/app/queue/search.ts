import { t } from '../i18n.ts';

/**
 * The queue's search box: `author:<id or the start of a name>`, `thread:<title, path or URL>`, `status:<tab>` and free text, mapped
 * to the filters of GET /api/comments. A value with spaces goes in double quotes.
 */
export const TABS = ['pending', 'flagged', 'spam', 'removed', 'all'] as const;
export type Tab = (typeof TABS)[number];
const STATUSES = new Set<string>([...TABS, 'published', 'deleted']);
export type QueueStatus = Tab | 'published' | 'deleted';

export interface ParsedSearch {
  author?: string;
  thread?: string;
  status?: QueueStatus;
  q?: string;
  /** Operators that were not understood, to say so rather than search for them as words. */
  problems: string[];
}

const TOKEN = /(\w+):"([^"]*)"|(\w+):(\S+)|"([^"]*)"|(\S+)/g;

export function parseSearch(input: string): ParsedSearch {
  const parsed: ParsedSearch = { problems: [] };
  const words: string[] = [];
  for (const match of input.matchAll(TOKEN)) {
    const name = (match[1] ?? match[3])?.toLowerCase();
    const value = match[2] ?? match[4];
    if (name === undefined) {
      words.push(match[5] ?? match[6]);
      continue;
    }
    if (name === 'author') parsed.author = value;
    else if (name === 'thread') parsed.thread = value;
    else if (name === 'status') {
      if (STATUSES.has(value.toLowerCase())) parsed.status = value.toLowerCase() as QueueStatus;
      else parsed.problems.push(t('queue.search.badStatus', { value }));
    } else if (/^https?$/.test(name)) words.push(match[0]);
    else parsed.problems.push(t('queue.search.badOperator', { name }));
  }
  const q = words.join(' ').trim();
  if (q) parsed.q = q;
  return parsed;
}
