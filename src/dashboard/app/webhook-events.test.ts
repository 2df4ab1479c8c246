import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../events/record.ts';
import { eventsToSave, WEBHOOK_EVENTS } from './webhook-events.ts';

describe("the webhook form's events", () => {
  it('offers every event the server delivers, import.completed among them', () => {
    expect([...WEBHOOK_EVENTS].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('saves the ticked events and keeps one the form does not know', () => {
    const ticked = new Set(['comment.created', 'import.completed']);
    expect(eventsToSave((event) => ticked.has(event), ['comment.created', 'comment.pinned'])).toEqual(['comment.created', 'import.completed', 'comment.pinned']);
  });
});
