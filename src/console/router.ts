import { useEffect, useState } from 'preact/hooks';

/**
 * Pages are addressed by the URL's fragment (`#/organizations/org_…/keys`), so one page at /console serves
 * them all and the back button works. Ids only: no token or secret ever goes into a URL.
 */
export type Route =
  | { page: 'organizations' }
  | { page: 'organization'; orgId: string; tab: OrganizationTab }
  | { page: 'projections' };

export const ORGANIZATION_TABS = ['overview', 'keys', 'people', 'spend', 'reservations', 'videos'] as const;
export type OrganizationTab = (typeof ORGANIZATION_TABS)[number];

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'projections') return { page: 'projections' };
  if (parts[0] === 'organizations' && parts[1]) {
    const tab = ORGANIZATION_TABS.find((name) => name === parts[2]) ?? 'overview';
    return { page: 'organization', orgId: parts[1], tab };
  }
  return { page: 'organizations' };
}

export function href(route: Route): string {
  switch (route.page) {
    case 'organizations':
      return '#/organizations';
    case 'projections':
      return '#/projections';
    case 'organization':
      return `#/organizations/${encodeURIComponent(route.orgId)}/${route.tab}`;
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
