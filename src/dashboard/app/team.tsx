import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../client/api.ts';
import { list, t, type MessageKey } from './i18n.ts';
import { navigate, withQuery } from './router.ts';
import { chosenSite, managedAccounts, useSession, type Me } from './session.ts';
import { SitePicker } from './site-picker.tsx';
import { CopyButton, Empty, Form, Loaded, notify, Table, text, useLoad, when } from './ui.tsx';

type Role = Answer<'/api/accounts/{id}/members'>['members'][number]['role'];
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

function Members(props: { accountId: string; me: Me }) {
  const { sites } = useSession();
  const [load, reload] = useLoad(() => must(api.GET('/api/accounts/{id}/members', { params: { path: { id: props.accountId } } })), [props.accountId]);
  const [link, setLink] = useState<{ intro: string; url: string } | null>(null);
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
                  <select
                    aria-label={t('team.roleOf', { member: member.name })}
                    onChange={(event) => {
                      const role = event.currentTarget.value as Role;
                      void run(() => must(api.PATCH('/api/accounts/{id}/members/{staffId}', { ...path(member.id), body: { role } })), t('team.roleChanged', { member: member.name, role }));
                    }}
                  >
                    {Object.entries(ROLES).map(([role, label]) => (
                      <option key={role} value={role} selected={role === member.role}>
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
    <Loaded load={load} retry={reload} loading="team.log.loading" failed="team.log.loadFailed">
      {(page) =>
        page.entries.length === 0 ? (
          <p class="note">{t('team.log.empty')}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('team.log.column.when')}</th>
                  <th scope="col">{t('team.log.column.who')}</th>
                  <th scope="col">{t('team.log.column.did')}</th>
                  <th scope="col">{t('team.log.column.comment')}</th>
                  <th scope="col">{t('team.log.column.why')}</th>
                </tr>
              </thead>
              <tbody>
                {page.entries.map((entry) => (
                  <tr key={entry.id}>
                    <td>{when(entry.created_at)}</td>
                    <td>
                      <bdi>{entry.moderator.name ?? t('team.log.unknown')}</bdi> <span class="note">{t('team.log.kind', { kind: entry.moderator.kind })}</span>
                    </td>
                    <td>{t('team.log.action', { action: entry.action })}</td>
                    <td>
                      {entry.comment.excerpt === null ? t('team.log.deletedComment', { author: entry.comment.author_name }) : t('team.log.comment', { author: entry.comment.author_name, excerpt: entry.comment.excerpt })}
                    </td>
                    <td>{entry.reason ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {page.next_cursor && (
              <button type="button" onClick={() => more(page)}>
                {t('team.log.older')}
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
      {account ? (
        <>
          <div class="panel">
            <h2>{t('team.invite.title')}</h2>
            <Invites accountId={account.account_id} />
          </div>
          <div class="panel">
            <h2>{t('team.members.title', { account: account.account_name })}</h2>
            <Members accountId={account.account_id} me={me} />
          </div>
        </>
      ) : (
        <p class="note">{t('team.notManager')}</p>
      )}
      <div class="panel">
        <div class="view-head">
          <h2>{site ? t('team.log.titleOf', { site: site.name }) : t('team.log.title')}</h2>
          {site && <SitePicker sites={sites} current={site} />}
        </div>
        {site ? <ModerationLog siteId={site.id} /> : <Empty>{t('team.noSite')}</Empty>}
      </div>
    </section>
  );
}
