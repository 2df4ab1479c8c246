import type { Format } from './source.ts';

/** Warnings listed in a report; the rest are counted. */
export const WARNINGS_LISTED = 100;

export interface ImportReport {
  format: Format;
  dry_run: boolean;
  threads: { created: number; existing: number };
  comments: {
    imported: number;
    /** Deleted placeholders are counted under "deleted", whatever their status. */
    by_status: Partial<Record<'published' | 'pending' | 'spam' | 'removed' | 'shadow_banned' | 'deleted', number>>;
    already_present: number;
  };
  skipped: Record<string, number>;
  /** Replies whose parent was missing or skipped, imported as top-level comments. */
  reparented: number;
  /** Times the source gave without a zone, read as UTC. */
  times_without_zone: number;
  /** Texts longer than Parley keeps (10,000 characters), cut there. */
  truncated: number;
  /** Personal data seen in the file that Parley has no place for, so did not keep. */
  personal_data_not_kept: { emails: number; ip_addresses: number };
  warnings: { source_id: string; message: string }[];
  warnings_total: number;
}

export function emptyReport(format: Format, dryRun: boolean): ImportReport {
  return {
    format,
    dry_run: dryRun,
    threads: { created: 0, existing: 0 },
    comments: { imported: 0, by_status: {}, already_present: 0 },
    skipped: {},
    reparented: 0,
    times_without_zone: 0,
    truncated: 0,
    personal_data_not_kept: { emails: 0, ip_addresses: 0 },
    warnings: [],
    warnings_total: 0,
  };
}

export function warn(report: ImportReport, sourceId: string, message: string): void {
  report.warnings_total++;
  if (report.warnings.length < WARNINGS_LISTED) report.warnings.push({ source_id: sourceId, message });
}

export function skip(report: ImportReport, reason: string, sourceId: string, message: string): void {
  report.skipped[reason] = (report.skipped[reason] ?? 0) + 1;
  warn(report, sourceId, message);
}

const STATUS_ORDER = ['published', 'pending', 'spam', 'removed', 'shadow_banned', 'deleted'] as const;

/** The report for people: one fact per line. */
export function describeReport(report: ImportReport): string {
  const lines = [
    `${report.dry_run ? 'Dry run (nothing written)' : 'Imported'} from ${report.format}:`,
    `  threads: ${report.threads.created} new, ${report.threads.existing} already there`,
    `  comments: ${report.comments.imported} ${report.dry_run ? 'to import' : 'imported'} (${STATUS_ORDER.filter((status) => report.comments.by_status[status]).map((status) => `${report.comments.by_status[status]} ${status.replace('_', '-')}`).join(', ') || 'none'}), ${report.comments.already_present} already there`,
    `  skipped: ${Object.entries(report.skipped).map(([reason, n]) => `${n} ${reason.replaceAll('_', ' ')}`).join(', ') || 'none'}`,
    `  reparented (parent missing or skipped, now top-level): ${report.reparented}`,
    `  times without a zone (read as UTC): ${report.times_without_zone}`,
    `  texts cut to 10,000 characters: ${report.truncated}`,
    `  personal data not kept: ${report.personal_data_not_kept.emails} emails, ${report.personal_data_not_kept.ip_addresses} IP addresses`,
  ];
  if (report.warnings_total > 0) {
    lines.push(`  warnings (${report.warnings_total}${report.warnings_total > report.warnings.length ? `, first ${report.warnings.length}` : ''}):`);
    for (const warning of report.warnings) lines.push(`    ${warning.source_id}: ${warning.message}`);
  }
  return `${lines.join('\n')}\n`;
}
