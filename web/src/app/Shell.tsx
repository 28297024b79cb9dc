import { useState, type ComponentType } from 'react';
import { FirstKeyNotice } from './FirstKeyNotice';
import { ApiKeysPage } from '../features/api-keys/ApiKeysPage';
import { DomainsPage } from '../features/domains/DomainsPage';
import { LogsPage } from '../features/logs/LogsPage';
import { MembersPage } from '../features/members/MembersPage';
import { MessagePage } from '../features/messages/MessagePage';
import { OverviewPage } from '../features/overview/OverviewPage';
import { SettingsPage } from '../features/settings/SettingsPage';
import { SuppressionsPage } from '../features/suppressions/SuppressionsPage';
import { TemplatePage } from '../features/templates/TemplatePage';
import { TemplatesPage } from '../features/templates/TemplatesPage';
import { UpstreamsPage } from '../features/upstreams/UpstreamsPage';
import { WebhooksPage } from '../features/webhooks/WebhooksPage';
import { navigate } from '../lib/router';
import { loadSession, signOut, type SessionInfo, type WorkspacePageProps } from '../lib/session';

/**
 * The signed-in frame's navigation: each page of a workspace, in order. A page
 * of a later issue is one more row here and one more path in src/dashboard/ui.ts.
 */
interface NavEntry {
  path: string;
  label: string;
  /** A page of the chosen workspace; Settings, which is not, has none. */
  Page?: ComponentType<WorkspacePageProps>;
}
const SETTINGS: NavEntry = { path: '/settings', label: 'Settings' };
const OVERVIEW: NavEntry = { path: '/', label: 'Overview', Page: OverviewPage };
const LOGS: NavEntry = { path: '/logs', label: 'Logs', Page: LogsPage };
const TEMPLATES: NavEntry = { path: '/templates', label: 'Templates', Page: TemplatesPage };
const NAV: NavEntry[] = [
  OVERVIEW,
  LOGS,
  { path: '/domains', label: 'Domains', Page: DomainsPage },
  { path: '/upstreams', label: 'Upstreams', Page: UpstreamsPage },
  TEMPLATES,
  { path: '/api-keys', label: 'API keys', Page: ApiKeysPage },
  { path: '/webhooks', label: 'Webhooks', Page: WebhooksPage },
  { path: '/suppressions', label: 'Suppressions', Page: SuppressionsPage },
  { path: '/members', label: 'Members', Page: MembersPage },
  SETTINGS,
];

/**
 * Pages of one thing, reached from another page's rows rather than the
 * navigation, which marks `parent` as current there; the path's first group is
 * the thing's id. Each pattern is also in src/dashboard/ui.ts's UI_PAGE_PATTERNS.
 */
interface ItemRoute {
  pattern: RegExp;
  parent: NavEntry;
  Page: ComponentType<WorkspacePageProps & { id: string }>;
}
const ITEMS: ItemRoute[] = [
  { pattern: /^\/messages\/([^/]+)$/, parent: LOGS, Page: MessagePage },
  { pattern: /^\/templates\/([^/]+)$/, parent: TEMPLATES, Page: TemplatePage },
];

interface ShellProps {
  session: SessionInfo;
  path: string;
  onSignedOut: () => void;
  /** The session with a workspace more (one just created). */
  onSessionChanged: (session: SessionInfo) => void;
  apiKey?: string | undefined;
  /** The workspace to open in (one just joined); by default the first. */
  workspaceId?: string | undefined;
}

export function Shell({ session, path, onSignedOut, onSessionChanged, apiKey: firstKey, workspaceId: openIn }: ShellProps) {
  const [workspaceId, setWorkspaceId] = useState(openIn ?? session.workspaces[0]?.id ?? '');
  const [apiKey, setApiKey] = useState(firstKey);
  /** Said once the user has left a workspace: the one they left, until they switch. */
  const [left, setLeft] = useState<string>();
  const item = ITEMS.map((route) => ({ route, id: route.pattern.exec(path)?.[1] })).find((found) => found.id !== undefined);
  const current = item?.route.parent ?? NAV.find((n) => path === n.path) ?? OVERVIEW;
  const Page = item ? undefined : current.Page;
  const ItemPage = item?.route.Page;
  const workspace = session.workspaces.find((w) => w.id === workspaceId);

  // The session as the server has it now: a changed role applies to every page; a workspace left is left.
  async function membershipChanged() {
    const fresh = await loadSession().catch(() => session);
    if (!fresh) return onSignedOut();
    onSessionChanged(fresh);
    if (!fresh.workspaces.some((w) => w.id === workspaceId)) {
      setLeft(workspace?.name ?? 'the workspace');
      setWorkspaceId(fresh.workspaces[0]?.id ?? '');
      navigate('/');
    }
  }

  async function leave() {
    await signOut().catch(() => undefined);
    onSignedOut();
  }

  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">Mailroom</span>
        {session.workspaces.length > 0 && (
          <label className="switcher">
            <span>Workspace</span>
            <select
              value={workspaceId}
              onChange={(e) => {
                setLeft(undefined);
                setWorkspaceId(e.target.value);
              }}
            >
              {session.workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <span className="who" title={session.user.email}>
          {session.user.email}
        </span>
        <button type="button" className="link" onClick={leave}>
          Sign out
        </button>
      </header>
      <nav className="sidenav" aria-label="Main">
        {NAV.map((n) => (
          <a
            key={n.path}
            href={n.path}
            aria-current={n === current ? 'page' : undefined}
            onClick={(e) => {
              e.preventDefault();
              navigate(n.path);
            }}
          >
            {n.label}
          </a>
        ))}
      </nav>
      <main className="content">
        {apiKey && <FirstKeyNotice apiKey={apiKey} />}
        {left && (
          <p className="notice" role="status">
            You are no longer a member of {left}.
          </p>
        )}
        {Page && workspace && <Page key={workspace.id} workspaceId={workspace.id} role={workspace.role} userId={session.user.id} userEmail={session.user.email} onMembershipChanged={membershipChanged} />}
        {ItemPage && workspace && item?.id && (
          <ItemPage key={`${workspace.id} ${item.id}`} workspaceId={workspace.id} role={workspace.role} userId={session.user.id} userEmail={session.user.email} onMembershipChanged={membershipChanged} id={item.id} />
        )}
        {(Page ?? ItemPage) && !workspace && <p className="muted">You are not a member of any workspace yet.</p>}
        {current === SETTINGS && (
          <SettingsPage
            session={session}
            workspaceId={workspaceId}
            onWorkspaceCreated={(created) => {
              onSessionChanged({ ...session, workspaces: [...session.workspaces, { id: created.id, name: created.name, role: created.role }] });
              setWorkspaceId(created.id);
              setApiKey(created.api_key);
            }}
            onWorkspaceRenamed={(renamed) =>
              onSessionChanged({ ...session, workspaces: session.workspaces.map((w) => (w.id === renamed.id ? { ...w, name: renamed.name } : w)) })
            }
          />
        )}
      </main>
    </div>
  );
}
