/**
 * Dependency rules of the gateway (DESIGN.md section 3), checked by `npm run depcheck`, part of `npm test`.
 *
 * Imports flow one way: http → pipeline → endpoints → ledger / access / providers / formats / catalog →
 * eventstore / db. A module never imports one in a layer above its own, two folders of one layer never
 * import each other, and nothing imports in a circle. Everything may import the shared modules (billing/,
 * errors/, ids/, config.ts, clock.ts, logger.ts), which import only each other; billing/ imports nothing of
 * the gateway at all. Type-only imports count: a type couples modules as much as a value does.
 *
 * The admin API's records (src/admin-records.ts and its parts in src/admin-records/: the wire shapes, types
 * only) are the bottom layer and import nothing but each other, so that the browser console, which imports
 * nothing else of the gateway, may import their types.
 *
 * Every module of src/ and projections/ belongs to a layer or to the shared modules, so a new folder fails
 * the check until it is placed here.
 *
 * Around the gateway: src/ and projections/ import neither test/ nor ops/; ops/ (scripts, the demo, the
 * benchmarks and the fake providers) may import the gateway but never test/; test/ may import all of them.
 */

const ADMIN_RECORDS = '^src/admin-records(\\.ts$|/)';

/** Layers from the top; each entry names one unit (a folder or a file) by a path pattern. */
const LAYERS = [
  // Entry points: the server and the CLIs.
  { main: '^src/main\\.ts$', 'admin cli': '^src/admin/cli\\.ts$', 'projections cli': '^projections/cli\\.ts$', 'audit cli': '^src/audit/cli\\.ts$' },
  // The stores and services every entry point opens (it names the readiness checks HTTP reports).
  { core: '^src/core\\.ts$' },
  // The admin API: routes mounted next to the pipeline's; it reads bodies and replies with http's helpers.
  { admin: '^src/admin/' },
  // metrics: the /metrics route and its request observer (an observer of http's), mounted by main beside
  // the http app's routes.
  { metrics: '^src/metrics/' },
  // http: the server's front door, the express app and its routes, and the HTTP helpers the admin API
  // shares (request context, bodies, replies); it implements the pipeline's client connection.
  { http: '^src/http/' },
  // The finance audit: replays the log (ledger, eventstore) and reads the read models to reconcile; only
  // the admin API, http and the entry points use it.
  { audit: '^src/audit/' },
  { pipeline: '^src/pipeline/' },
  { endpoints: '^src/endpoints/' },
  // Read models: fed from the ledger's, access's and the video jobs' event catalogues; the budget alerts'
  // decides its alerts with src/alerts and queues their deliveries there.
  { projections: '^projections/' },
  // Video jobs: their decider and the worker that submits, polls and settles them, on the features below
  // (the key's status, the account, the provider); the read model of the jobs reaches it through a port.
  { videos: '^src/videos/' },
  // Budget alerts: which charge crosses a threshold (pure, for the alerts read model), the webhook
  // deliveries' table and the dispatcher that signs and sends them, on the access rules and the ledger's
  // periods below.
  { alerts: '^src/alerts/' },
  // The features, in three tiers so that the ones that import each other do so one way only.
  { access: '^src/access/' },
  // prices: the price versions of every model (an event stream), which the pipeline, the video jobs and the
  // audit price at; built on the catalog's rates and the event store.
  { ledger: '^src/ledger/', providers: '^src/providers/', prices: '^src/prices/' },
  { formats: '^src/formats/', catalog: '^src/catalog/' },
  // Adapters to the outside, then the database they may share. The admin client is the CLIs' adapter to a
  // running gateway (its admin API over HTTP, and how to find the gateway that holds the data directory):
  // below the audit and projections commands that run through it, as well as the admin CLI.
  { eventstore: '^src/eventstore/', ratelimit: '^src/ratelimit/', jobs: '^src/jobs/', 'admin client': '^src/admin-client/' },
  { db: '^src/db/' },
  // PII masking (detectors, the masker of request bodies, the unmasker of answers and streams): pure text
  // and JSON work that the pipeline's mask step calls. It sits low so that it can import nothing of the
  // gateway above it; the rule pii-imports-little below narrows it further to billing/ and errors/.
  { pii: '^src/pii/' },
  // The admin API's records: rendered by admin/ (and projections/ for a projection's status), read by the
  // admin client's callers and, types only, by the browser console.
  { 'admin records': ADMIN_RECORDS },
];

const SHARED = ['^src/billing/', '^src/errors/', '^src/ids/', '^src/config\\.ts$', '^src/clock\\.ts$', '^src/logger\\.ts$'];

/**
 * The modules of src/ that may import the read models' code (projections/): the composition root (it runs
 * the projections and hands the reservation sweeper its query), the admin API (projection status and
 * rebuild routes), metrics (each projection's lag) and the finance audit (it reconciles the log with the
 * ledger's read model). Nothing else: not the core, http, the pipeline or the endpoints, and none of the
 * modules the projections build on (access, ledger, eventstore, db, …), which reach a read model only
 * through a port the composition root fills (src/ledger/reservation-sweeper.ts). The projections CLI is
 * part of projections/ itself.
 */
const PROJECTION_READERS = ['^src/main\\.ts$', '^src/admin/', '^src/metrics/', '^src/audit/'];

/**
 * Imports that break the layers and are left, for a time, to the work that removes them: `{ from, to }`
 * file paths. Delete an entry when its import is gone, so the check holds for that module too.
 */
const KNOWN_EXCEPTIONS = [];

const unitsOf = (layer) => Object.entries(layer).map(([name, path]) => ({ name, path }));
const exactly = (file) => `^${file.replace(/\./g, '\\.')}$`;
/** The web console's browser code: bundled apart (ops/console-build.ts), it talks to the gateway over HTTP only. */
const BROWSER = ['^src/console/'];

const placed = [...LAYERS.flatMap((layer) => Object.values(layer)), ...SHARED, ...BROWSER];

/**
 * `rule` without the known exceptions, plus, for each module that has some, the same rule for that module
 * alone with its exceptions allowed.
 */
function exceptingKnown(rule) {
  const inRule = (file) => new RegExp(rule.from.path).test(file) && !(rule.from.pathNot ?? []).some((pattern) => new RegExp(pattern).test(file));
  const modules = [...new Set(KNOWN_EXCEPTIONS.map((exception) => exception.from).filter(inRule))];
  if (modules.length === 0) return [rule];
  return [
    { ...rule, from: { ...rule.from, pathNot: [...(rule.from.pathNot ?? []), ...modules.map(exactly)] } },
    ...modules.map((module) => ({
      ...rule,
      from: { path: exactly(module) },
      to: { ...rule.to, pathNot: KNOWN_EXCEPTIONS.filter((exception) => exception.from === module).map((exception) => exactly(exception.to)) },
    })),
  ];
}

const layerRules = LAYERS.flatMap((layer, index) => {
  const above = LAYERS.slice(0, index).flatMap((upper) => Object.values(upper));
  return unitsOf(layer).flatMap((unit) => {
    const rules = [];
    if (above.length > 0) {
      rules.push({
        name: 'layer-imports-above',
        comment: `${unit.name} imports a module of a layer above it`,
        severity: 'error',
        from: { path: unit.path, pathNot: above },
        to: { path: above },
      });
    }
    const siblings = unitsOf(layer).filter((other) => other.name !== unit.name);
    if (siblings.length > 0) {
      rules.push({
        name: 'layer-siblings-import-each-other',
        comment: `${unit.name} imports a folder of its own layer; give one of them a layer of its own`,
        severity: 'error',
        from: { path: unit.path, pathNot: above },
        to: { path: siblings.map((sibling) => sibling.path) },
      });
    }
    return rules.flatMap(exceptingKnown);
  });
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'modules import each other, directly or through others',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'billing-is-a-leaf',
      comment: 'billing/ imports node built-ins and packages only, so that everything may import it',
      severity: 'error',
      from: { path: '^src/billing/' },
      to: { path: '^(src|projections|test|ops)/', pathNot: '^src/billing/' },
    },
    {
      name: 'pii-imports-little',
      comment: 'src/pii/ imports only itself, billing/ and errors/ of the gateway: it sees texts and JSON, never a request, a key or a store',
      severity: 'error',
      from: { path: '^src/pii/' },
      to: { path: '^(src|projections|test|ops)/', pathNot: ['^src/pii/', '^src/billing/', '^src/errors/'] },
    },
    {
      name: 'shared-imports-shared',
      comment: 'the shared modules (errors, ids, config, clock, logger) import only each other and billing',
      severity: 'error',
      from: { path: SHARED },
      to: { path: '^(src|projections|test|ops)/', pathNot: SHARED },
    },
    {
      name: 'not-in-a-layer',
      comment: 'a module of src/ or projections/ that no layer names: place its folder in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^(src|projections)/', pathNot: placed },
      to: {},
    },
    {
      name: 'not-in-a-layer',
      comment: 'an import of a module of src/ or projections/ that no layer names: place its folder in .dependency-cruiser.cjs',
      severity: 'error',
      from: {},
      to: { path: '^(src|projections)/', pathNot: placed },
    },
    {
      name: 'admin-records-import-nothing',
      comment: 'src/admin-records.ts (and its parts in src/admin-records/) holds the admin API\'s record types and imports nothing but its parts, so that the browser console may import it',
      severity: 'error',
      from: { path: ADMIN_RECORDS },
      to: { pathNot: ADMIN_RECORDS },
    },
    {
      name: 'projections-read-by-named-modules',
      comment: 'a module of src/ imports projections/ that PROJECTION_READERS does not name: reach the read model through a port, or name the module there with the reason',
      severity: 'error',
      from: { path: '^src/', pathNot: PROJECTION_READERS },
      to: { path: '^projections/' },
    },
    {
      name: 'browser-code-imports-browser-code',
      comment: 'the console (src/console) runs in the browser: it imports its own modules, npm packages and the admin records\' types, never the server, tests or node built-ins',
      severity: 'error',
      from: { path: BROWSER },
      to: { path: '^(src|projections|test|ops)/', pathNot: [...BROWSER, ADMIN_RECORDS] },
    },
    {
      name: 'browser-code-imports-browser-code',
      comment: 'the console imports the admin records with `import type` only: the types are erased, nothing of the server reaches the bundle',
      severity: 'error',
      from: { path: BROWSER },
      to: { path: ADMIN_RECORDS, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'browser-code-imports-browser-code',
      comment: 'the console (src/console) runs in the browser: no node built-ins',
      severity: 'error',
      from: { path: BROWSER },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'server-never-imports-browser-code',
      comment: 'the gateway serves the built console as files; its code never imports src/console',
      severity: 'error',
      from: { path: '^(src|projections)/', pathNot: BROWSER },
      to: { path: BROWSER },
    },
    {
      name: 'no-test-code-in-the-gateway',
      comment: 'src/ and projections/ never import test/ (nor ops/ scripts)',
      severity: 'error',
      from: { path: '^(src|projections)/' },
      to: { path: '^(test|ops)/' },
    },
    {
      name: 'ops-never-imports-test',
      comment: 'ops/ (the demo, the benchmarks, the fake providers they share with the tests) never imports test/: what both need lives in ops/ and the tests import it from there',
      severity: 'error',
      from: { path: '^ops/' },
      to: { path: '^test/' },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
