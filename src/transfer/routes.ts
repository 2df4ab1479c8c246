import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf, audited, recordAudit } from '../audit/audit.ts';
import type { Db } from '../db/connect.ts';
import { AppError, invalid } from '../errors.ts';
import { errors, IdParams, ManagementRead, ManagementWrite } from '../http/schemas.ts';
import { newId } from '../ids.ts';
import { managedSite } from '../sites/repository.ts';
import { exportSite } from './export.ts';
import { detectFormat } from './input.ts';
import type { ImportRunner } from './job-runner.ts';
import { activeJob, failLeftBehind, findJob, insertJob, jobView, listJobs } from './jobs.ts';
import { ExportQuery, ImportJobSchema, ImportQuery, JobListQuery, JobParams } from './schemas.ts';
import { FORMATS, ImportFileError, type Format } from './source.ts';
import { receiveUpload } from './upload.ts';

/** The file's format as named, or as its first bytes show; 400 when they show none. */
async function formatOf(path: string, named: Format | undefined): Promise<Format> {
  if (named) return named;
  try {
    return await detectFormat(path);
  } catch (error) {
    if (!(error instanceof ImportFileError)) throw error;
    const unknown = error.message.startsWith('the format could not be recognised');
    throw invalid(unknown ? 'querystring/format' : 'body', unknown ? `The file's format could not be recognised; name it with ?format= (${FORMATS.join(', ')})` : error.message);
  }
}

const CONTENT_TYPES = { parley: 'application/x-ndjson; charset=utf-8', disqus: 'application/xml; charset=utf-8' } as const;
const EXTENSIONS = { parley: 'jsonl', disqus: 'xml' } as const;

export const transferRoutes: FastifyPluginAsyncTypebox<{ db: Db; runner: ImportRunner }> = async (app, { db, runner }) => {
  // An import's body is the file itself, whatever its type (XML, JSON, gzip, SQLite): not parsed
  // here, but streamed to a temporary file by the handler once the caller may import (upload.ts).
  // Only in this plugin: everywhere else bodies stay JSON of at most 64 KiB.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  app.post('/api/sites/:id/imports', {
    schema: {
      tags: ['transfer'],
      summary: 'Import a file of comments into the site, in the background',
      description:
        'The request body is the file as it is: a Disqus export (XML, plain or gzipped), a WordPress WXR file, a Remark42 backup, a Commento export, ' +
        "an Isso SQLite database or Parley's own export (any Content-Type; multipart forms are not read). At most PARLEY_IMPORT_MAX_SIZE (512 MiB) " +
        'as sent, else 413. Answers 202 with the import job; GET …/imports/:job_id shows its progress and, once completed, its report. ' +
        'One import at a time per site (409 while one is queued or running). Imports are idempotent and never delete.',
      security: ManagementWrite,
      params: IdParams,
      querystring: ImportQuery,
      consumes: ['application/octet-stream', 'application/gzip', 'application/xml', 'application/x-ndjson', 'application/json', 'application/vnd.sqlite3'],
      // Described, not validated: the parser hands the handler no body (it streams request.raw), and a schema without a type accepts that.
      body: Type.Unsafe<undefined>({ description: 'The file to import, byte for byte' }),
      response: { 202: ImportJobSchema, ...errors },
    },
    handler: async (request, reply) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      const busy = async () => {
        await failLeftBehind(db.kysely, site.id);
        const active = await activeJob(db.kysely, site.id);
        return active && new AppError('conflict', `An import into this site is already queued or running (${active}); start the next once it has finished`);
      };
      const conflict = await busy();
      if (conflict) throw conflict;
      const upload = await receiveUpload(request.raw, request.headers['content-length'], app.config.importMaxBytes);
      try {
        if (upload.bytes === 0) throw invalid('body', 'is empty: send the file to import as the request body');
        const format = await formatOf(upload.path, request.query.format);
        const id = newId('imp');
        const actor = actorOf(request.caller);
        const dryRun = request.query.dry_run ?? false;
        const audit = { accountId: site.accountId, actor, action: 'import.started', target: id, data: { site_id: site.id, format, dry_run: dryRun, file_bytes: upload.bytes } };
        try {
          await audited(db.kysely, audit, (trx) => insertJob(trx, { id, siteId: site.id, format, dryRun, fileBytes: upload.bytes, actor }, app.config.importLeaseMs));
        } catch (error) {
          // Another upload to this site got its job in first (the database keeps one active per site).
          throw (await busy()) || error;
        }
        runner.enqueue({ id, siteId: site.id, upload, baseUrl: request.query.base_url });
        return reply.code(202).send(jobView((await findJob(db.kysely, site.id, id))!));
      } catch (error) {
        await upload.dispose();
        throw error;
      }
    },
  });

  app.get('/api/sites/:id/imports', {
    schema: {
      tags: ['transfer'],
      summary: "The site's import jobs, newest first",
      security: ManagementRead,
      params: IdParams,
      querystring: JobListQuery,
      response: { 200: Type.Object({ imports: Type.Array(ImportJobSchema), total: Type.Integer(), page: Type.Integer() }), ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      const { page = 1, limit = 20 } = request.query;
      await failLeftBehind(db.kysely, site.id);
      const { rows, total } = await listJobs(db.kysely, site.id, page, limit);
      return { imports: rows.map(jobView), total, page };
    },
  });

  app.get('/api/sites/:id/imports/:job_id', {
    schema: {
      tags: ['transfer'],
      summary: 'An import job: its progress while it runs, then its report or its error',
      security: ManagementRead,
      params: JobParams,
      response: { 200: ImportJobSchema, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      await failLeftBehind(db.kysely, site.id);
      const job = await findJob(db.kysely, site.id, request.params.job_id);
      if (!job) throw new AppError('not_found', `No import ${request.params.job_id}`);
      return jobView(job);
    },
  });

  app.get('/api/sites/:id/export', {
    schema: {
      tags: ['transfer'],
      summary: "Download the site's threads and comments",
      description:
        "Streamed as an attachment: Parley's JSON Lines (application/x-ndjson; what POST …/imports and `parley import` read back) or Disqus's export XML. " +
        "include_personal_data=true adds the site's own ids of its users. Recorded in the audit log.",
      security: ManagementRead,
      params: IdParams,
      querystring: ExportQuery,
      response: {
        200: {
          description: 'The export file, as an attachment',
          content: { 'application/x-ndjson': { schema: Type.String({ description: 'format=parley' }) }, 'application/xml': { schema: Type.String({ description: 'format=disqus' }) } },
        },
        ...errors,
      },
    },
    handler: async (request, reply) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      const { format = 'parley', include_personal_data: includePersonalData = false } = request.query;
      await recordAudit(db.kysely, { accountId: site.accountId, actor: actorOf(request.caller), action: 'site.exported', target: site.id, data: { format, include_personal_data: includePersonalData } });
      const body = new PassThrough();
      exportSite(db.kysely, { siteId: site.id, format, includePersonalData }, body).then(
        () => body.end(),
        (err) => {
          // The answer has begun: cut it short, so the reader sees a file without its end (an import refuses those).
          if (!body.destroyed) request.log.error({ err }, 'an export stopped');
          body.destroy();
        },
      );
      const date = new Date().toISOString().slice(0, 10);
      return reply
        .type(CONTENT_TYPES[format])
        .header('content-disposition', `attachment; filename="parley-${site.id}-${date}.${EXTENSIONS[format]}"`)
        .send(body);
    },
  });
};
