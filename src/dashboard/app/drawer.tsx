import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../client/api.ts';
import { BanDialog } from './queue/ban-dialog.tsx';
import { statusText } from './queue/card.tsx';
import { href } from './router.ts';
import { administers, useSession } from './session.ts';
import { ago, Dialog, Link, Loaded, notify, useLoad, when } from './ui.tsx';

type Commenter = Answer<'/api/sites/{id}/users/{user_id}'>;

/** How the commenter gets in: their own ways of signing in, or the site's single sign-on. */
function waysIn(user: Commenter): string {
  if (!user.own_account) return 'Signed in by the site (SSO or its backend)';
  if (user.sign_in_methods.length === 0) return 'Has no way left to sign in';
  const names = new Set(user.sign_in_methods.map((method) => (method.type === 'email' ? 'email code' : (method.provider_name ?? method.type))));
  return `Signs in with: ${[...names].join(', ')}`;
}

/**
 * The labels moderators give a commenter, which their comments on the site show as badges: listed,
 * and edited as one line of comma-separated words.
 */
function LabelsEditor(props: { user: Commenter; busy: boolean; save: (labels: string[]) => void }) {
  const [draft, setDraft] = useState(props.user.labels.join(', '));
  return (
    <>
      <h4>Labels</h4>
      {props.user.labels.length === 0 ? (
        <p class="note">No label.</p>
      ) : (
        <ul class="labels" aria-label="Labels">
          {props.user.labels.map((label) => (
            <li key={label} class="badge author-badge">{label}</li>
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
          Labels, separated by commas
          <input value={draft} onInput={(event) => setDraft(event.currentTarget.value)} aria-describedby="labels-help" />
        </label>
        <button type="submit" disabled={props.busy}>Save labels</button>
      </form>
      <p id="labels-help" class="note">Up to 5, each up to 32 characters. Their comments on this site show them, earlier ones too.</p>
    </>
  );
}

/**
 * A commenter seen from the queue: their counts, recent comments on the site, bans (lift them or
 * add one, timed or permanent), labels, shadow ban, removing every comment of theirs at once, and for
 * owners and admins erasing their personal data. That button shows for anyone who administers an
 * account, as the site list does not name a site's account; the server refuses the others.
 */
export function AuthorDrawer(props: { siteId: string; userId: string; onClose: () => void; onChanged: () => void }) {
  const { me } = useSession();
  const path = { id: props.siteId, user_id: props.userId };
  const [load, reload] = useLoad(() => must(api.GET('/api/sites/{id}/users/{user_id}', { params: { path } })), [props.siteId, props.userId]);
  const [banning, setBanning] = useState(false);
  const [busy, setBusy] = useState(false);

  const act = async (what: () => Promise<string>) => {
    setBusy(true);
    try {
      notify(await what());
      await reload();
      props.onChanged();
    } catch (error) {
      notify(errorText(error), 'error');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog title="Commenter" class="drawer" onClose={props.onClose}>
      <Loaded load={load} retry={reload} what="the commenter">
        {(user) => {
          const active = user.bans.filter((ban) => ban.active);
          const shadow = active.find((ban) => ban.ban_type === 'shadow_ban');
          return (
            <div class="drawer-body">
              <h3>{user.name}</h3>
              <p class="note">
                {user.external_id} · first comment {when(user.first_comment_at)}
              </p>
              {!user.erased_at && <p class="ways-in">{waysIn(user)}</p>}
              <dl class="figures">
                {(['published', 'pending', 'removed', 'spam'] as const).map((status) => (
                  <div key={status}>
                    <dt>{status}</dt>
                    <dd>{user.comments[status]}</dd>
                  </div>
                ))}
              </dl>
              <div class="actions">
                <button type="button" disabled={busy} onClick={() => setBanning(true)}>Ban…</button>
                {!shadow && (
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() =>
                      act(async () => {
                        await must(api.POST('/api/sites/{id}/bans', { params: { path: { id: props.siteId } }, body: { user_id: props.userId, ban_type: 'shadow_ban' } }));
                        return `${user.name} is shadow-banned: only they see their comments`;
                      })
                    }
                  >
                    Shadow-ban
                  </button>
                )}
                <button
                  type="button"
                  class="danger"
                  disabled={busy}
                  onClick={() =>
                    confirm(`Remove every comment of ${user.name} on this site?`) &&
                    act(async () => {
                      const done = await must(api.POST('/api/sites/{id}/users/{user_id}/moderate', { params: { path }, body: { action: 'remove' } }));
                      return `Removed ${done.moderated} comment${done.moderated === 1 ? '' : 's'} of ${user.name}`;
                    })
                  }
                >
                  Remove all their comments
                </button>
                {!user.erased_at && administers(me) && (
                  <button
                    type="button"
                    class="danger"
                    disabled={busy}
                    onClick={() =>
                      confirm(
                        `Erase the personal data of ${user.name}? Their mail addresses, sessions, name and avatar are deleted for good and cannot be brought back; their comments stay, under "Deleted user".`,
                      ) &&
                      act(async () => {
                        await must(api.DELETE('/api/sites/{id}/users/{user_id}', { params: { path } }));
                        return `Erased the personal data of ${user.name}`;
                      })
                    }
                  >
                    Erase personal data
                  </button>
                )}
              </div>
              {user.erased_at && <p class="note">Personal data erased {when(user.erased_at)}.</p>}
              <LabelsEditor
                key={user.labels.join('\n')}
                user={user}
                busy={busy}
                save={(labels) =>
                  act(async () => {
                    await must(api.PATCH('/api/sites/{id}/users/{user_id}', { params: { path }, body: { labels } }));
                    return labels.length === 0 ? `${user.name} has no label now` : `${user.name} is labelled: ${labels.join(', ')}`;
                  })
                }
              />
              <h4>Bans</h4>
              {user.bans.length === 0 ? (
                <p class="note">No ban.</p>
              ) : (
                <ul class="bans">
                  {user.bans.map((ban) => (
                    <li key={ban.id}>
                      <strong>{ban.ban_type === 'ban' ? 'Ban' : 'Shadow ban'}</strong> {ban.active ? '(in force)' : '(ended)'} since {when(ban.created_at)}
                      {ban.expires_at ? `, until ${when(ban.expires_at)}` : ', permanent'}
                      {ban.reason && <span>: {ban.reason}</span>}
                      <span class="note"> by {ban.created_by.name ?? 'a moderator'}</span>
                      {ban.active && (
                        <button
                          type="button"
                          disabled={busy}
                          onClick={() =>
                            act(async () => {
                              await must(api.DELETE('/api/sites/{id}/bans/{ban_id}', { params: { path: { id: props.siteId, ban_id: ban.id } } }));
                              return `Lifted the ${ban.ban_type === 'ban' ? 'ban' : 'shadow ban'} of ${user.name}`;
                            })
                          }
                        >
                          Lift
                        </button>
                      )}
                    </li>
                  ))}
                </ul>
              )}
              <h4>Recent comments</h4>
              {user.recent_comments.length === 0 ? (
                <p class="note">No comments yet.</p>
              ) : (
                <ul class="recent">
                  {user.recent_comments.map((comment) => (
                    <li key={comment.id}>
                      <span class={`badge status-${comment.status}`}>{statusText(comment)}</span> <time dateTime={comment.created_at}>{ago(comment.created_at)}</time>{' '}
                      <Link href={`${href('thread')}?site=${comment.site_id}&url=${encodeURIComponent(comment.thread_url)}&comment=${comment.id}`}>in its thread</Link>
                      <p>{comment.content ?? '(deleted)'}</p>
                    </li>
                  ))}
                </ul>
              )}
              <p>
                <Link href={`${href('queue')}?tab=all&search=${encodeURIComponent(`author:${props.userId}`)}`}>All their comments in the queue</Link>
              </p>
              {banning && <BanDialog siteId={props.siteId} userId={props.userId} name={user.name} onClose={() => setBanning(false)} onBanned={() => void reload()} />}
            </div>
          );
        }}
      </Loaded>
    </Dialog>
  );
}
