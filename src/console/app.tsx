import { useEffect, useState } from 'preact/hooks';
import { loadSession, signOut, whenSignedOut } from './api.js';
import { ModelsPage } from './pages/models.js';
import { OrganizationsPage } from './pages/organizations.js';
import { OrganizationPage } from './pages/organization.js';
import { OverviewPage } from './pages/overview.js';
import { ProjectionsPage } from './pages/projections.js';
import { RequestLog } from './pages/request-log.js';
import { useRoute } from './router.js';
import { href, type Route } from './routes.js';
import { SignIn } from './sign-in.js';
import { ErrorNotice, useAction } from './ui.js';

type SessionState = { state: 'checking' } | { state: 'signed-out'; reason?: string } | { state: 'signed-in'; expiresAt: string };

export function App() {
  const [session, setSession] = useState<SessionState>({ state: 'checking' });
  const check = () =>
    loadSession().then(
      (found) => setSession(found ? { state: 'signed-in', expiresAt: found.expires_at } : { state: 'signed-out' }),
      () => setSession({ state: 'signed-out', reason: 'The gateway did not answer; sign in when it is back.' }),
    );
  useEffect(() => {
    whenSignedOut(() => setSession({ state: 'signed-out', reason: 'Your session has ended. Sign in again.' }));
    void check();
  }, []);
  if (session.state === 'checking') return <p aria-live="polite">Loading…</p>;
  if (session.state === 'signed-out') return <SignIn reason={session.reason} onSignedIn={check} />;
  return <SignedIn onSignedOut={() => setSession({ state: 'signed-out', reason: 'You are signed out.' })} />;
}

/** The main navigation: each page, and which one the current route belongs to. */
const SECTIONS: ReadonlyArray<{ name: string; route: Route; holds: ReadonlyArray<Route['page']> }> = [
  { name: 'Overview', route: { page: 'overview' }, holds: ['overview'] },
  { name: 'Organizations', route: { page: 'organizations' }, holds: ['organizations', 'organization'] },
  { name: 'Requests', route: { page: 'requests' }, holds: ['requests'] },
  { name: 'Models', route: { page: 'models' }, holds: ['models'] },
  { name: 'Projections', route: { page: 'projections' }, holds: ['projections'] },
];

function SignedIn({ onSignedOut }: { onSignedOut: () => void }) {
  const route = useRoute();
  const leaving = useAction();
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [route.page, route.page === 'organization' ? route.orgId : '']);
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header>
        <span class="brand">Gateway console</span>
        <nav aria-label="Main">
          {SECTIONS.map((section) => (
            <a key={section.name} href={href(section.route)} aria-current={section.holds.includes(route.page) ? 'page' : undefined}>
              {section.name}
            </a>
          ))}
        </nav>
        <button type="button" disabled={leaving.busy} onClick={async () => (await leaving.run(signOut)) && onSignedOut()}>
          Sign out
        </button>
      </header>
      <ErrorNotice error={leaving.error} action="sign out" />
      <main id="content">
        {route.page === 'overview' ? <OverviewPage /> : null}
        {route.page === 'organizations' ? <OrganizationsPage /> : null}
        {route.page === 'organization' ? <OrganizationPage orgId={route.orgId} tab={route.tab} filter={route.filter ?? {}} /> : null}
        {route.page === 'requests' ? (
          <>
            <h1 tabIndex={-1}>Requests</h1>
            <RequestLog filter={route.filter ?? {}} />
          </>
        ) : null}
        {route.page === 'models' ? <ModelsPage /> : null}
        {route.page === 'projections' ? <ProjectionsPage /> : null}
      </main>
    </>
  );
}
