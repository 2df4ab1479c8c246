import type { paths } from '../client/api.ts';

type SiteChange = NonNullable<paths['/api/sites/{id}']['patch']['requestBody']>['content']['application/json'];
export type WebhookEvent = NonNullable<SiteChange['webhook_events']>[number];

/**
 * Every event a site's webhook can take, in the order the form offers them. A record over the API's
 * own enum, so that an event the server adds fails the type check until it is offered here.
 */
const OFFERED: Record<WebhookEvent, true> = {
  'comment.created': true,
  'comment.updated': true,
  'comment.deleted': true,
  'comment.flagged': true,
  'comment.approved': true,
  'comment.rejected': true,
  'moderation.action': true,
  'user.created': true,
  'user.banned': true,
  'subscription.changed': true,
  'import.completed': true,
};
export const WEBHOOK_EVENTS = Object.keys(OFFERED) as WebhookEvent[];

/**
 * The events to save: those ticked, and any the site takes that this form does not offer (a newer
 * server's), so that saving never drops one unseen.
 */
export function eventsToSave(ticked: (event: WebhookEvent) => boolean, current: readonly string[]): WebhookEvent[] {
  const unseen = current.filter((event) => !Object.hasOwn(OFFERED, event)) as WebhookEvent[];
  return [...WEBHOOK_EVENTS.filter(ticked), ...unseen];
}
