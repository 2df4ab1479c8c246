import { Type } from 'typebox';
import { Nullable, Timestamp } from '../http/schemas.ts';
import { EXPORT_FORMATS } from './export.ts';
import { JOB_STATUSES } from './jobs.ts';
import { FORMATS } from './source.ts';

export const ImportQuery = Type.Object({
  format: Type.Optional(Type.Enum([...FORMATS], { description: 'The file\'s format; recognised from its content when left out' })),
  dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Read and check everything and report, writing nothing' })),
  base_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: "Isso keeps page paths: the site's address they hang from (default https://<the site's first domain>/)" })),
});

export const ImportJobSchema = Type.Object({
  id: Type.String({ description: 'imp_<id>' }),
  site_id: Type.String(),
  status: Type.Enum([...JOB_STATUSES], { description: 'queued → running → completed or failed' }),
  format: Nullable(Type.Enum([...FORMATS])),
  dry_run: Type.Boolean(),
  file_bytes: Type.Integer({ description: 'Size of the uploaded file as sent (gzipped when it was)' }),
  progress: Type.Object({
    records_read: Type.Integer({ description: 'Records of the file read and checked so far (first pass)' }),
    comments_processed: Type.Integer({ description: 'Comments written, or found already there, so far (second pass)' }),
  }),
  report: Nullable(Type.Unknown({ description: 'Once completed: the report `parley import --json` prints' })),
  error: Nullable(
    Type.Object({
      message: Type.String({ description: 'Why it failed, naming the line or record where the file broke' }),
      line: Nullable(Type.Integer({ description: 'The line of the file where it broke, when the format has lines' })),
    }),
  ),
  started_by: Type.Object({ id: Type.String({ description: 'stf_… or key_…' }), name: Type.String() }),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
});

export const JobParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }), job_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const JobListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

export const ExportQuery = Type.Object({
  format: Type.Optional(Type.Enum([...EXPORT_FORMATS], { default: 'parley', description: "parley: Parley's JSON Lines; disqus: Disqus's export XML" })),
  include_personal_data: Type.Optional(Type.Boolean({ default: false, description: "Adds the site's own ids of its users (author_external_id)" })),
});
