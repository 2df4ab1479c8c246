import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../client/api.ts';
import { list, t } from './i18n.ts';
import { BanDialog } from './queue/ban-dialog.tsx';
import { statusText } from './queue/card.tsx';
import { href } from './router.ts';
import { administers, useSession } from './session.ts';
import { ago, Dialog, Link, Loaded, notify, useLoad, when } from './ui.tsx';

type Commenter = Answer<'/api/sites/{id}/users/{user_id}'>;
type Note = Commenter['notes'][number];

/** How the commenter gets in: their own ways of signing in, or the site's single sign-on. */
function waysIn(user: Commenter): string {
  if (!user.own_account) return t('drawer.waysIn.site');
  if (user.sign_in_methods.length === 0) return t('drawer.waysIn.none');
  const names = new Set(user.sign_in_methods.map((method) => (method.type === 'email' ? t('drawer.waysIn.emailCode') : (method.provider_name ?? method.type))));
  return t('drawer.waysIn.list', { ways: list([...names]) });
}

/**
 * The labels moderators give a commenter, which their comments on the site show as badges: listed,
 * and edited as one line of comma-separated words.
 */
function LabelsEditor(props: { user: Commenter; busy: boolean; save: (labels: string[]) => void }) {
  const [draft, setDraft] = useState(props.user.labels.join(', '));
  return (
    <>
      <h4>{t('drawer.labels')}</h4>
      {props.user.labels.length === 0 ? (
        <p class="note">{t('drawer.noLabel')}</p>
      ) : (
        <ul class="labels" aria-label={t('drawer.labels')}>
          {props.user.labels.map((label) => (
            <li key={label} class="badge author-badge" dir="auto">{label}</li>
          ))}
        </ul>
      )}
      <form
        class="labels-form"
        onSubmit={(event) => {
          event.preventDefault();
          props.save(draft.split(',').map((label) => label.trim()).filter((label) => label !== ''));
        }}
      >
        <label>
          {t('drawer.labelsField')}
          <input value={draft} onInput={(event) => setDraft(event.currentTarget.value)} aria-describedby="labels-help" />
        </label>
        <button type="submit" disabled={props.busy}>{t('drawer.saveLabels')}</button>
      </form>
      <p id="labels-help" class="note">{t('drawer.labelsHelp')}</p>
    </>
  );
}

/**
 * What the site's moderators wrote down about the commenter, newest first, and a field to add to it.
 * A note is deleted by whoever wrote it, or an owner or admin (the server refuses the others).
 */
function Notes(props: { user: Commenter; busy: boolean; mayDelete: (note: Note) => boolean; add: (body: string) => Promise<boolean>; remove: (note: Note) => void }) {
  const [draft, setDraft] = useState('');
  return (
    <>
      <h4 id="notes-title">{t('drawer.notes')}</h4>
      <p class="note">{t('drawer.notesHelp')}</p>
      {props.user.notes.length === 0 ? (
        <p class="note">{t('drawer.noNote')}</p>
      ) : (
        <ul class="notes" aria-labelledby="notes-title">
          {props.user.notes.map((note) => (
            <li key={note.id}>
              <p class="note">
                {note.created_by.name ? t('drawer.noteBy', { name: note.created_by.name, when: when(note.created_at) }) : t('drawer.noteByUnknown', { when: when(note.created_at) })}
              </p>
              <p dir="auto">{note.body}</p>
              {props.mayDelete(note) && (
                <button type="button" class="plain" disabled={props.busy} aria-label={t('drawer.deleteNoteLabel', { when: when(note.created_at) })} onClick={() => props.remove(note)}>
                  {t('drawer.deleteNote')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <form
        class="note-form"
        onSubmit={async (event) => {
          event.preventDefault();
          if (draft.trim() !== '' && (await props.add(draft.trim()))) setDraft('');
        }}
      >
        <label>
          {t('drawer.noteField')}
          <textarea value={draft} rows={2} maxLength={2000} required dir="auto" onInput={(event) => setDraft(event.currentTarget.value)} />
        </label>
        <button type="submit" disabled={props.busy}>{t('drawer.addNote')}</button>
      </form>
    </>
  );
}

/**
 * A commenter seen from the queue: their counts, recent comments on the site, bans (lift them or
 * add one, timed or permanent), labels, moderators' notes, shadow ban, removing every comment of theirs at once, and for
 * owners and admins erasing their personal data. That button shows for anyone who administers an
 * account, as the site list does not name a site's account; the server refuses the others.
 */
export function AuthorDrawer(props: { siteId: string; userId: string; onClose: () => void; onChanged: () => void }) {
  const { me } = useSession();
  const path = { id: props.siteId, user_id: props.userId };
  const [load, reload] = useLoad(() => must(api.GET('/api/sites/{id}/users/{user_id}', { params: { path } })), [props.siteId, props.userId]);
  const [banning, setBanning] = useState(false);
  const [busy, setBusy] = useState(false);

  /** Does something to the commenter and says so; whether it was done. */
  const act = async (what: () => Promise<string>) => {
    setBusy(true);
    try {
      notify(await what());
      await reload();
      props.onChanged();
      return true;
    } catch (error) {
      notify(errorText(error), 'error');
      return false;
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog title={t('drawer.title')} class="drawer" onClose={props.onClose}>
      <Loaded load={load} retry={reload} loading="drawer.loading" failed="drawer.loadFailed">
        {(user) => {
          const active = user.bans.filter((ban) => ban.active);
          const shadow = active.find((ban) => ban.ban_type === 'shadow_ban');
          return (
            <div class="drawer-body">
              <h3>
                <bdi>{user.name}</bdi>
              </h3>
              <p class="note">
                <bdi>{user.external_id}</bdi> · {t('drawer.firstComment', { when: when(user.first_comment_at) })}
              </p>
              {!user.erased_at && <p class="ways-in">{waysIn(user)}</p>}
              <dl class="figures">
                {(['published', 'pending', 'removed', 'spam'] as const).map((status) => (
                  <div key={status}>
                    <dt>{t('queue.status', { status })}</dt>
                    <dd>{user.comments[status]}</dd>
                  </div>
                ))}
              </dl>
              <div class="actions">
                <button type="button" disabled={busy} onClick={() => setBanning(true)}>{t('drawer.ban')}</button>
                {!shadow && (
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() =>
                      act(async () => {
                        await must(api.POST('/api/sites/{id}/bans', { params: { path: { id: props.siteId } }, body: { user_id: props.userId, ban_type: 'shadow_ban' } }));
                        return t('drawer.shadowBanned', { name: user.name });
                      })
                    }
                  >
                    {t('drawer.shadowBan')}
                  </button>
                )}
                <button
                  type="button"
                  class="danger"
                  disabled={busy}
                  onClick={() =>
                    confirm(t('drawer.removeAllConfirm', { name: user.name })) &&
                    act(async () => {
                      const done = await must(api.POST('/api/sites/{id}/users/{user_id}/moderate', { params: { path }, body: { action: 'remove' } }));
                      return t('drawer.removedAll', { count: done.moderated, name: user.name });
                    })
                  }
                >
                  {t('drawer.removeAll')}
                </button>
                {!user.erased_at && administers(me) && (
                  <button
                    type="button"
                    class="danger"
                    disabled={busy}
                    onClick={() =>
                      confirm(t('drawer.eraseConfirm', { name: user.name })) &&
                      act(async () => {
                        await must(api.DELETE('/api/sites/{id}/users/{user_id}', { params: { path } }));
                        return t('drawer.erased', { name: user.name });
                      })
                    }
                  >
                    {t('drawer.erase')}
                  </button>
                )}
              </div>
              {user.erased_at && <p class="note">{t('drawer.erasedAt', { when: when(user.erased_at) })}</p>}
              <LabelsEditor
                key={user.labels.join('\n')}
                user={user}
                busy={busy}
                save={(labels) =>
                  act(async () => {
                    await must(api.PATCH('/api/sites/{id}/users/{user_id}', { params: { path }, body: { labels } }));
                    return labels.length === 0 ? t('drawer.unlabelled', { name: user.name }) : t('drawer.labelled', { name: user.name, labels: list(labels) });
                  })
                }
              />
              <Notes
                user={user}
                busy={busy}
                mayDelete={(note) => note.created_by.id === me.staff.id || administers(me)}
                add={(body) =>
                  act(async () => {
                    await must(api.POST('/api/sites/{id}/users/{user_id}/notes', { params: { path }, body: { body } }));
                    return t('drawer.noteAdded', { name: user.name });
                  })
                }
                remove={(note) =>
                  act(async () => {
                    await must(api.DELETE('/api/sites/{id}/users/{user_id}/notes/{note_id}', { params: { path: { ...path, note_id: note.id } } }));
                    return t('drawer.noteDeleted');
                  })
                }
              />
              <h4>{t('drawer.bans')}</h4>
              {user.bans.length === 0 ? (
                <p class="note">{t('drawer.noBan')}</p>
              ) : (
                <ul class="bans">
                  {user.bans.map((ban) => (
                    <li key={ban.id}>
                      <strong>{t('drawer.banKind', { kind: ban.ban_type })}</strong>{' '}
                      {ban.expires_at
                        ? t('drawer.banTimed', { active: ban.active ? 'yes' : 'no', since: when(ban.created_at), until: when(ban.expires_at) })
                        : t('drawer.banPermanent', { active: ban.active ? 'yes' : 'no', since: when(ban.created_at) })}
                      {ban.reason && <span dir="auto"> {t('drawer.banReason', { reason: ban.reason })}</span>}{' '}
                      <span class="note">{ban.created_by.name ? t('drawer.banBy', { name: ban.created_by.name }) : t('drawer.banByUnknown')}</span>
                      {ban.active && (
                        <button
                          type="button"
                          disabled={busy}
                          onClick={() =>
                            act(async () => {
                              await must(api.DELETE('/api/sites/{id}/bans/{ban_id}', { params: { path: { id: props.siteId, ban_id: ban.id } } }));
                              return t('drawer.lifted', { kind: ban.ban_type, name: user.name });
                            })
                          }
                        >
                          {t('drawer.lift')}
                        </button>
                      )}
                    </li>
                  ))}
                </ul>
              )}
              <h4>{t('drawer.recent')}</h4>
              {user.recent_comments.length === 0 ? (
                <p class="note">{t('drawer.noComments')}</p>
              ) : (
                <ul class="recent">
                  {user.recent_comments.map((comment) => (
                    <li key={comment.id}>
                      <span class={`badge status-${comment.status}`}>{statusText(comment)}</span> <time dateTime={comment.created_at}>{ago(comment.created_at)}</time>{' '}
                      <Link href={`${href('thread')}?site=${comment.site_id}&url=${encodeURIComponent(comment.thread_url)}&comment=${comment.id}`}>{t('drawer.inThread')}</Link>
                      <p dir="auto">{comment.content ?? t('queue.deletedContent')}</p>
                    </li>
                  ))}
                </ul>
              )}
              <p>
                <Link href={`${href('queue')}?tab=all&search=${encodeURIComponent(`author:${props.userId}`)}`}>{t('drawer.allInQueue')}</Link>
              </p>
              {banning && <BanDialog siteId={props.siteId} userId={props.userId} name={user.name} onClose={() => setBanning(false)} onBanned={() => { void reload(); props.onChanged(); }} />}
            </div>
          );
        }}
      </Loaded>
    </Dialog>
  );
}
