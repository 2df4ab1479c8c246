import { useEffect, useRef } from 'preact/hooks';
import { api, must } from '../client/api.ts';
import { t } from './i18n.ts';
import type { QueueItem } from './queue/actions.ts';
import { Form, text } from './ui.tsx';

/**
 * A reply written from the dashboard (POST /api/comments): published at once under the staff
 * member's own name, with the staff badge. Answers the reply as the queue lists it.
 */
export function ReplyForm(props: { to: QueueItem; onPosted: (reply: QueueItem | null) => void; onCancel: () => void }) {
  const { to } = props;
  const field = useRef<HTMLTextAreaElement>(null);
  useEffect(() => field.current?.focus(), []);
  const id = `reply-${to.id}`;
  return (
    <div class="reply-form" onKeyDown={(event) => event.key === 'Escape' && (event.preventDefault(), props.onCancel())}>
      <Form
        submit={t('thread.replySend')}
        onSubmit={async (data) => {
          const reply = await must(api.POST('/api/comments', { body: { site_id: to.site_id, thread_url: to.thread_url, parent_id: to.id, content: text(data, 'content') } }));
          // Read back as the queue lists it (its thread, its author's kind), to stand beside the others.
          const listed = await must(api.GET('/api/comments', { params: { query: { site_id: to.site_id, thread_url: to.thread_url, status: 'all', sort: 'newest', limit: 20 } } }));
          // null: so many comments came meanwhile that it is not among the newest; the thread is read again.
          props.onPosted(listed.comments.find((comment) => comment.id === reply.id) ?? null);
        }}
      >
        <label for={id}>{t('thread.replyLabel', { name: to.author_name })}</label>
        <textarea id={id} ref={field} name="content" rows={3} required maxLength={10_000} dir="auto" />
        <p class="note">{t('thread.replyHelp')}</p>
      </Form>
      <button type="button" class="plain" onClick={props.onCancel}>{t('thread.replyCancel')}</button>
    </div>
  );
}
