import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../client/api.ts';
import { list, t, type MessageKey } from './i18n.ts';
import { navigate, withQuery } from './router.ts';
import { managedAccounts, useSession, type Me } from './session.ts';
import { CopyButton, Dialog, Form, Loaded, notify, Table, text, useLoad, when } from './ui.tsx';

type Member = Answer<'/api/accounts/{id}/members'>['members'][number];
type Role = Member['role'];
const ROLES: Record<Role, MessageKey> = { owner: 'team.role.owner', admin: 'team.role.admin', moderator: 'team.role.moderator' };

/** A link made for someone (an invite, a password reset), shown this once to hand over. */
function HandOver(props: { intro: string; url: string; onDone: () => void }) {
  return (
    <div class="secret" role="status">
      <span>
        {props.intro} <code>{props.url}</code>
      </span>
      <CopyButton text={props.url} label={t('team.copyLink')} />
      <button type="button" class="plain" onClick={props.onDone}>{t('team.done')}</button>
    </div>
  );
}

/** Asks before a role changes, naming the person and the role; a refusal is said here, and nothing changes. */
function RoleChange(props: { member: Member; role: Role; onConfirm: () => Promise<void>; onClose: () => void }) {
  return (
    <Dialog title={t('team.roleChange.title')} onClose={props.onClose}>
      <Form submit={t('team.roleChange.confirm', { role: props.role })} onSubmit={props.onConfirm}>
        <p>{t('team.roleChange.question', { member: props.member.name, from: props.member.role, role: props.role })}</p>
      </Form>
    </Dialog>
  );
}

function Members(props: { accountId: string; me: Me }) {
  const { sites } = useSession();
  const [load, reload] = useLoad(() => must(api.GET('/api/accounts/{id}/members', { params: { path: { id: props.accountId } } })), [props.accountId]);
  const [link, setLink] = useState<{ intro: string; url: string } | null>(null);
  // The select keeps showing the role the server holds until a change is confirmed and accepted.
  const [change, setChange] = useState<{ member: Member; role: Role } | null>(null);
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
    <Loaded load={load} retry={reload} loading="team.members.loading" failed="team.members.loadFailed">
      {(data) => (
        <>
          {link && <HandOver intro={link.intro} url={link.url} onDone={() => setLink(null)} />}
          {change && (
            <RoleChange
              {...change}
              onClose={() => setChange(null)}
              onConfirm={async () => {
                await must(api.PATCH('/api/accounts/{id}/members/{staffId}', { ...path(change.member.id), body: { role: change.role } }));
                setChange(null);
                notify(t('team.roleChanged', { member: change.member.name, role: change.role }));
                await reload();
              }}
            />
          )}
          <Table columns={[t('team.column.member'), t('team.column.role'), t('team.column.sites'), t('team.column.joined'), <span class="sr">{t('team.column.actions')}</span>]}>
            {data.members.map((member) => (
              <tr key={member.id}>
                <td>
                  {member.name}
                  <div class="note">
                    {member.email} {!member.email_verified && <span class="badge status-pending" title={t('team.unconfirmedWhy')}>{t('team.unconfirmed')}</span>}
                  </div>
                </td>
                <td>
                  <select aria-label={t('team.roleOf', { member: member.name })} value={member.role} onChange={(event) => setChange({ member, role: event.currentTarget.value as Role })}>
                    {Object.entries(ROLES).map(([role, label]) => (
                      <option key={role} value={role}>
                        {t(label)}
                      </option>
                    ))}
                  </select>
                </td>
                <td>{member.site_ids ? list(member.site_ids.map((id) => sites.find((site) => site.id === id)?.name ?? id)) : t('team.allSites')}</td>
                <td>{when(member.joined_at)}</td>
                <td class="actions">
                  {member.id !== props.me.staff.id && (
                    <button
                      type="button"
                      onClick={async () => {
                        try {
                          const made = await must(api.POST('/api/accounts/{id}/members/{staffId}/reset-link', path(member.id)));
                          setLink({ intro: t('team.resetLink', { member: member.name }), url: made.url });
                        } catch (error) {
                          notify(errorText(error), 'error');
                        }
                      }}
                    >
                      {t('team.resetLinkButton')}
                    </button>
                  )}
                  <button
                    type="button"
                    class="danger"
                    aria-label={member.id === props.me.staff.id ? t('team.leaveLabel') : t('team.removeLabel', { member: member.name })}
                    onClick={() =>
                      confirm(member.id === props.me.staff.id ? t('team.leaveConfirm') : t('team.removeConfirm', { member: member.name })) &&
                      run(() => must(api.DELETE('/api/accounts/{id}/members/{staffId}', path(member.id))), t('team.removed', { member: member.name }))
                    }
                  >
                    {t(member.id === props.me.staff.id ? 'team.leave' : 'team.remove')}
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
        submit={t('team.invite.submit')}
        onSubmit={async (data) => {
          const site = text(data, 'site');
          const invite = await must(api.POST('/api/accounts/{id}/invites', { params: { path: { id: props.accountId } }, body: { role: text(data, 'role') as Role, site_ids: site ? [site] : null } }));
          setMade(invite.url);
          await reload();
        }}
      >
        <label>
          {t('team.column.role')}
          <select name="role">
            {(['moderator', 'admin', 'owner'] as const).map((role) => (
              <option key={role} value={role}>{t(ROLES[role])}</option>
            ))}
          </select>
        </label>
        <label>
          {t('team.column.sites')}
          <select name="site">
            <option value="">{t('team.invite.everySite')}</option>
            {sites.map((site) => (
              <option key={site.id} value={site.id}>{t('team.invite.siteOnly', { site: site.name })}</option>
            ))}
          </select>
        </label>
      </Form>
      {made && <HandOver intro={t('team.invite.link')} url={made} onDone={() => setMade(null)} />}
      <Loaded load={load} retry={reload} loading="team.invite.loading" failed="team.invite.loadFailed">
        {(data) =>
          data.invites.length === 0 ? (
            <p class="note">{t('team.invite.empty')}</p>
          ) : (
            <ul class="invites">
              {data.invites.map((invite) => (
                <li key={invite.id}>
                  {t('team.invite.made', { role: invite.role, when: when(invite.created_at) })} <span class="badge">{t('team.invite.state', { state: invite.state })}</span>
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
                      {t('team.invite.revoke')}
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

/** The team: invite links for a role, and members and their roles. Who moderated what is the log's view. */
export function TeamView(props: { url: URL }) {
  const { me } = useSession();
  const accounts = managedAccounts(me);
  const account = accounts.find((m) => m.account_id === props.url.searchParams.get('account')) ?? accounts[0];
  return (
    <section aria-labelledby="team-title">
      <div class="view-head">
        <h1 id="team-title">{t('team.title')}</h1>
        {accounts.length > 1 && (
          <label>
            {t('team.account')}
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
      <div class="panel">
        <h2>{t('team.invite.title')}</h2>
        <Invites accountId={account.account_id} />
      </div>
      <div class="panel">
        <h2>{t('team.members.title', { account: account.account_name })}</h2>
        <Members accountId={account.account_id} me={me} />
      </div>
    </section>
  );
}
