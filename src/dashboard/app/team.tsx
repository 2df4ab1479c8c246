import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../client/api.ts';
import { navigate, withQuery } from './router.ts';
import { chosenSite, managedAccounts, useSession, type Me } from './session.ts';
import { SitePicker } from './site-picker.tsx';
import { CopyButton, Empty, Form, Loaded, notify, Table, text, useLoad, when } from './ui.tsx';

type Role = Answer<'/api/accounts/{id}/members'>['members'][number]['role'];
const ROLES: Record<Role, string> = { owner: 'Owner', admin: 'Admin', moderator: 'Moderator' };
const UNCONFIRMED = 'Address not confirmed';
const UNCONFIRMED_WHY = 'No mail goes to this address (no moderation mail, no reset link) until its owner follows the link mailed to it';

/** A link made for someone (an invite, a password reset), shown this once to hand over. */
function HandOver(props: { what: string; url: string; onDone: () => void }) {
  return (
    <div class="secret" role="status">
      <span>
        {props.what}, shown this once: <code>{props.url}</code>
      </span>
      <CopyButton text={props.url} label="Copy the link" />
      <button type="button" class="plain" onClick={props.onDone}>Done</button>
    </div>
  );
}

function Members(props: { accountId: string; me: Me }) {
  const { sites } = useSession();
  const [load, reload] = useLoad(() => must(api.GET('/api/accounts/{id}/members', { params: { path: { id: props.accountId } } })), [props.accountId]);
  const [link, setLink] = useState<{ what: string; url: string } | null>(null);
  const path = (staffId: string) => ({ params: { path: { id: props.accountId, staffId } } });
  const run = async (what: () => Promise<unknown>, done: string) => {
    try {
      await what();
      notify(done);
      await reload();
    } catch (error) {
      notify(errorText(error), 'error');
    }
  };
  return (
    <Loaded load={load} retry={reload} what="the members">
      {(data) => (
        <>
          {link && <HandOver what={link.what} url={link.url} onDone={() => setLink(null)} />}
          <Table columns={['Member', 'Role', 'Sites', 'Joined', <span class="sr">Actions</span>]}>
            {data.members.map((member) => (
              <tr key={member.id}>
                <td>
                  {member.name}
                  <div class="note">
                    {member.email} {!member.email_verified && <span class="badge status-pending" title={UNCONFIRMED_WHY}>{UNCONFIRMED}</span>}
                  </div>
                </td>
                <td>
                  <select
                    aria-label={`Role of ${member.name}`}
                    onChange={(event) => {
                      const role = event.currentTarget.value as Role;
                      void run(() => must(api.PATCH('/api/accounts/{id}/members/{staffId}', { ...path(member.id), body: { role } })), `${member.name} is now ${ROLES[role].toLowerCase()}`);
                    }}
                  >
                    {Object.entries(ROLES).map(([role, label]) => (
                      <option key={role} value={role} selected={role === member.role}>
                        {label}
                      </option>
                    ))}
                  </select>
                </td>
                <td>{member.site_ids ? member.site_ids.map((id) => sites.find((site) => site.id === id)?.name ?? id).join(', ') : 'all'}</td>
                <td>{when(member.joined_at)}</td>
                <td class="actions">
                  {member.id !== props.me.staff.id && (
                    <button
                      type="button"
                      onClick={async () => {
                        try {
                          const made = await must(api.POST('/api/accounts/{id}/members/{staffId}/reset-link', path(member.id)));
                          setLink({ what: `A password reset link for ${member.name}`, url: made.url });
                        } catch (error) {
                          notify(errorText(error), 'error');
                        }
                      }}
                    >
                      Reset link
                    </button>
                  )}
                  <button
                    type="button"
                    class="danger"
                    aria-label={member.id === props.me.staff.id ? 'Leave the account' : `Remove ${member.name}`}
                    onClick={() =>
                      confirm(member.id === props.me.staff.id ? 'Leave this account?' : `Remove ${member.name} from the team?`) &&
                      run(() => must(api.DELETE('/api/accounts/{id}/members/{staffId}', path(member.id))), `${member.name} is removed`)
                    }
                  >
                    {member.id === props.me.staff.id ? 'Leave' : 'Remove'}
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </Loaded>
  );
}

function Invites(props: { accountId: string }) {
  const { sites } = useSession();
  const [load, reload] = useLoad(() => must(api.GET('/api/accounts/{id}/invites', { params: { path: { id: props.accountId } } })), [props.accountId]);
  const [made, setMade] = useState<string | null>(null);
  return (
    <>
      <Form
        class="inline-form"
        submit="Make an invite link"
        onSubmit={async (data) => {
          const site = text(data, 'site');
          const invite = await must(api.POST('/api/accounts/{id}/invites', { params: { path: { id: props.accountId } }, body: { role: text(data, 'role') as Role, site_ids: site ? [site] : null } }));
          setMade(invite.url);
          await reload();
        }}
      >
        <label>
          Role
          <select name="role">
            <option value="moderator">Moderator</option>
            <option value="admin">Admin</option>
            <option value="owner">Owner</option>
          </select>
        </label>
        <label>
          Sites
          <select name="site">
            <option value="">Every site</option>
            {sites.map((site) => (
              <option key={site.id} value={site.id}>{site.name} only</option>
            ))}
          </select>
        </label>
      </Form>
      {made && <HandOver what="The invite link (valid 7 days, for one person)" url={made} onDone={() => setMade(null)} />}
      <Loaded load={load} retry={reload} what="the invites">
        {(data) =>
          data.invites.length === 0 ? (
            <p class="note">No invite yet.</p>
          ) : (
            <ul class="invites">
              {data.invites.map((invite) => (
                <li key={invite.id}>
                  {ROLES[invite.role]} invite made {when(invite.created_at)}: <strong>{invite.state}</strong>
                  {invite.state === 'pending' && (
                    <button
                      type="button"
                      onClick={async () => {
                        try {
                          await must(api.DELETE('/api/accounts/{id}/invites/{inviteId}', { params: { path: { id: props.accountId, inviteId: invite.id } } }));
                          await reload();
                        } catch (error) {
                          notify(errorText(error), 'error');
                        }
                      }}
                    >
                      Revoke
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </>
  );
}

type LogPage = Answer<'/api/sites/{id}/moderation-log'>;

function ModerationLog(props: { siteId: string }) {
  const [load, reload, update] = useLoad(() => must(api.GET('/api/sites/{id}/moderation-log', { params: { path: { id: props.siteId }, query: { limit: 25 } } })), [props.siteId]);
  const more = async (page: LogPage) => {
    try {
      const next = await must(api.GET('/api/sites/{id}/moderation-log', { params: { path: { id: props.siteId }, query: { limit: 25, cursor: page.next_cursor! } } }));
      update((current) => ({ entries: [...current.entries, ...next.entries], next_cursor: next.next_cursor }));
    } catch (error) {
      notify(errorText(error), 'error');
    }
  };
  return (
    <Loaded load={load} retry={reload} what="the moderation log">
      {(page) =>
        page.entries.length === 0 ? (
          <p class="note">Nobody has moderated a comment of this site yet.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">Did</th>
                  <th scope="col">To the comment</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {page.entries.map((entry) => (
                  <tr key={entry.id}>
                    <td>{when(entry.created_at)}</td>
                    <td>
                      {entry.moderator.name ?? 'unknown'} <span class="note">({entry.moderator.kind === 'key' ? 'API key' : entry.moderator.kind})</span>
                    </td>
                    <td>{entry.action.replace('_', ' ')}</td>
                    <td>
                      {entry.comment.author_name}: {entry.comment.excerpt ?? '(deleted)'}
                    </td>
                    <td>{entry.reason ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {page.next_cursor && (
              <button type="button" onClick={() => more(page)}>
                Older entries
              </button>
            )}
          </div>
        )
      }
    </Loaded>
  );
}

/** The team: invite links for a role, members and their roles, and who moderated what. */
export function TeamView(props: { url: URL }) {
  const { me, sites } = useSession();
  const accounts = managedAccounts(me);
  const account = accounts.find((m) => m.account_id === props.url.searchParams.get('account')) ?? accounts[0];
  const site = chosenSite(sites, props.url);
  return (
    <section aria-labelledby="team-title">
      <div class="view-head">
        <h1 id="team-title">Team</h1>
        {accounts.length > 1 && (
          <label>
            Account
            <select onChange={(event) => navigate(withQuery({ account: event.currentTarget.value }))}>
              {accounts.map((m) => (
                <option key={m.account_id} value={m.account_id} selected={m.account_id === account?.account_id}>
                  {m.account_name}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {account ? (
        <>
          <div class="panel">
            <h2>Invite someone</h2>
            <Invites accountId={account.account_id} />
          </div>
          <div class="panel">
            <h2>Members of {account.account_name}</h2>
            <Members accountId={account.account_id} me={me} />
          </div>
        </>
      ) : (
        <p class="note">Owners and admins manage the team; you see the moderation log.</p>
      )}
      <div class="panel">
        <div class="view-head">
          <h2>Moderation log{site ? ` of ${site.name}` : ''}</h2>
          {site && <SitePicker sites={sites} current={site} />}
        </div>
        {site ? <ModerationLog siteId={site.id} /> : <Empty>No site yet.</Empty>}
      </div>
    </section>
  );
}
