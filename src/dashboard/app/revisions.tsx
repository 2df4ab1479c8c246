import { useState } from 'preact/hooks';
import { api, errorText, must } from '../client/api.ts';
import { t } from './i18n.ts';
import { when } from './ui.tsx';

type Revision = { content: string; written_at: string; replaced_at: string };
type Versions = { state: 'closed' } | { state: 'loading' } | { state: 'error'; error: string } | { state: 'ready'; revisions: Revision[] };

/**
 * "Edited", for a comment its author changed: opens the texts its edits replaced, oldest first,
 * read when first opened (GET /api/comments/:id/revisions).
 */
export function EarlierVersions(props: { commentId: string; authorName: string }) {
  const [versions, setVersions] = useState<Versions>({ state: 'closed' });
  const open = async () => {
    setVersions({ state: 'loading' });
    try {
      const { revisions } = await must(api.GET('/api/comments/{id}/revisions', { params: { path: { id: props.commentId } } }));
      setVersions({ state: 'ready', revisions });
    } catch (error) {
      setVersions({ state: 'error', error: errorText(error) });
    }
  };
  return (
    <details
      class="versions"
      onToggle={(event) => {
        if ((event.currentTarget as HTMLDetailsElement).open && (versions.state === 'closed' || versions.state === 'error')) void open();
      }}
    >
      <summary aria-label={t('revisions.label', { name: props.authorName })}>{t('revisions.edited')}</summary>
      {versions.state === 'loading' && <p class="note" role="status">{t('revisions.loading')}</p>}
      {versions.state === 'error' && (
        <p class="problem-text" role="alert">
          {t('revisions.failed', { error: versions.error })}
        </p>
      )}
      {versions.state === 'ready' && versions.revisions.length === 0 && <p class="note">{t('revisions.none')}</p>}
      {versions.state === 'ready' && versions.revisions.length > 0 && (
        <ol class="versions-list">
          {versions.revisions.map((revision) => (
            <li key={revision.replaced_at}>
              <p class="note">
                {t('revisions.when', { written: when(revision.written_at), replaced: when(revision.replaced_at) })}
              </p>
              <p class="content" dir="auto">{revision.content}</p>
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}
