import { Type } from 'typebox';
import { Nullable } from '../http/schemas.ts';
import { DAYS, WEBHOOK_WINDOW } from './service.ts';

const Count = Type.Integer({ minimum: 0 });

export const SiteStats = Type.Object({
  site_id: Type.String(),
  days: Type.Array(
    Type.Object({ day: Type.String({ description: 'YYYY-MM-DD (UTC)' }), published: Count, pending: Count, removed: Count, spam: Count }),
    { description: `Comments written on each of the last ${DAYS} days, by their status now; oldest first, today last` },
  ),
  pending: Type.Integer({ description: 'Comments waiting for approval' }),
  top_threads: Type.Array(
    Type.Object({ id: Type.String(), url: Type.String(), title: Nullable(Type.String()), top_level_comments: Count }),
    { description: 'The 10 threads with the most top-level comments (conversations)' },
  ),
  webhooks: Type.Object(
    {
      deliveries: Count,
      succeeded: Count,
      failed: Count,
      pending: Count,
      success_rate: Nullable(Type.Number({ minimum: 0, maximum: 1 }), { description: 'succeeded / (succeeded + failed); null when none finished' }),
    },
    { description: `Over the site's latest ${WEBHOOK_WINDOW} deliveries (test deliveries left out)` },
  ),
});
