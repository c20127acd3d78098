/**
 * Pages are addressed by the URL's fragment (`#/organizations/org_…/keys`), so one page at /console serves
 * them all and the back button works. The request log keeps its filters there too
 * (`#/requests?status=error&from=…`), so that a figure of the overview links to the requests behind it and
 * a filtered log can be bookmarked. Ids and filters only: no token or secret ever goes into a URL.
 */
export const REQUEST_FILTERS = ['key_id', 'model', 'space_id', 'endpoint', 'status', 'from', 'to', 'request'] as const;
/** The request log's filters, as the admin API names them; `request`: the request to jump to and open. */
export type RequestFilter = Partial<Record<(typeof REQUEST_FILTERS)[number], string>>;

export const ORGANIZATION_TABS = ['overview', 'keys', 'people', 'spend', 'requests', 'reservations', 'videos', 'controls'] as const;
export type OrganizationTab = (typeof ORGANIZATION_TABS)[number];

export type Route =
  | { page: 'overview' }
  | { page: 'organizations' }
  | { page: 'organization'; orgId: string; tab: OrganizationTab; filter?: RequestFilter }
  | { page: 'requests'; filter?: RequestFilter }
  | { page: 'models' }
  | { page: 'projections' };

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const filter = filterOf(new URLSearchParams(query));
  switch (parts[0]) {
    case 'organizations': {
      if (!parts[1]) return { page: 'organizations' };
      const tab = ORGANIZATION_TABS.find((name) => name === parts[2]) ?? 'overview';
      return tab === 'requests' ? { page: 'organization', orgId: parts[1], tab, filter } : { page: 'organization', orgId: parts[1], tab };
    }
    case 'requests':
      return { page: 'requests', filter };
    case 'models':
      return { page: 'models' };
    case 'projections':
      return { page: 'projections' };
    default:
      return { page: 'overview' };
  }
}

export function href(route: Route): string {
  switch (route.page) {
    case 'overview':
      return '#/overview';
    case 'organizations':
      return '#/organizations';
    case 'models':
      return '#/models';
    case 'projections':
      return '#/projections';
    case 'requests':
      return `#/requests${queryOf(route.filter)}`;
    case 'organization':
      return `#/organizations/${encodeURIComponent(route.orgId)}/${route.tab}${route.tab === 'requests' ? queryOf(route.filter) : ''}`;
  }
}

/** The request log of one organization, or of all when `orgId` is undefined. */
export const requestsHref = (orgId: string | undefined, filter: RequestFilter = {}) =>
  href(orgId === undefined ? { page: 'requests', filter } : { page: 'organization', orgId, tab: 'requests', filter });

function filterOf(params: URLSearchParams): RequestFilter {
  const filter: RequestFilter = {};
  for (const name of REQUEST_FILTERS) {
    const value = params.get(name);
    if (value) filter[name] = value;
  }
  return filter;
}

function queryOf(filter: RequestFilter = {}): string {
  const params = new URLSearchParams();
  for (const name of REQUEST_FILTERS) if (filter[name]) params.set(name, filter[name]!);
  const text = params.toString();
  return text ? `?${text}` : '';
}
