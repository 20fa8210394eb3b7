// The layering rule of src/ (docs/architecture.md), checked by `npm run lint`; imports flow one way:
//   app, cli  →  modules/<feature>/*.routes.ts  →  http/  →  modules/<feature> services
//     →  modules/<feature>/queries  →  platform/  →  domain/, shared/
// Schemas (http/schemas/, modules/<feature>/schemas.ts) are leaves beside them. No import cycles anywhere.
// test/unit/lint-rules.test.ts plants one violation of each rule below and sees each reported.
const ROUTES = '(^|[./])routes\\.ts$';
const QUERIES = '^src/modules/[^/]+/(queries\\.ts$|queries/)';
const SCHEMAS = '^src/(http/schemas/|modules/[^/]+/schemas\\.ts$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'foundation-stays-at-the-bottom',
      comment:
        'platform/ (database, configuration), domain/ (pure rules) and shared/ (helpers every feature uses) know nothing of the layers above.',
      severity: 'error',
      from: { path: '^src/(platform|domain|shared)/' },
      to: { path: '^src/(app|cli|http|modules)/' },
    },
    {
      name: 'domain-and-shared-are-pure',
      comment: 'domain/ and shared/ hold pure code: no database, no HTTP framework.',
      severity: 'error',
      from: { path: '^src/(domain|shared)/' },
      to: { path: ['^src/platform/', 'node_modules/(kysely|fastify|@fastify|pg|better-sqlite3)/'] },
    },
    {
      name: 'domain-below-shared',
      comment: 'shared/ may use the pure rules of domain/, not the other way round.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/shared/' },
    },
    {
      name: 'queries-only-reach-down',
      comment:
        "A queries file reads and writes rows; it never calls a service, a route, a schema or HTTP (other features' queries and modules/context.ts are fine).",
      severity: 'error',
      from: { path: QUERIES },
      to: {
        path: ['^src/(app|cli|http)/', '^src/modules/'],
        pathNot: [QUERIES, '^src/modules/context\\.ts$'],
      },
    },
    {
      name: 'services-know-no-http',
      comment:
        'Services (every file of modules/ but the routes) are shared by both APIs and the CLI: no Fastify, no routes, no app or CLI.',
      severity: 'error',
      from: { path: '^src/modules/', pathNot: ROUTES },
      to: { path: ['^src/(app|cli)/', ROUTES, 'node_modules/(fastify|@fastify)/'] },
    },
    {
      name: 'services-use-only-http-schemas',
      comment: 'Of http/, services may use the shared schemas (the contract types), nothing else.',
      severity: 'error',
      from: { path: '^src/modules/', pathNot: ROUTES },
      to: { path: '^src/http/', pathNot: '^src/http/schemas/' },
    },
    {
      name: 'http-below-routes',
      comment: 'The HTTP plugins serve the routes; they never import a route, the app or the CLI.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: ['^src/(app|cli)/', ROUTES] },
    },
    {
      name: 'routes-are-doors',
      comment: "A feature's routes call services; they never import another routes file (app/ wires them).",
      severity: 'error',
      from: { path: ROUTES },
      to: { path: ROUTES },
    },
    {
      name: 'schemas-are-leaves',
      comment:
        'Request and response schemas (the published contract) depend on nothing but domain/ and other schemas.',
      severity: 'error',
      from: { path: SCHEMAS },
      to: { path: '^src/', pathNot: ['^src/domain/', SCHEMAS] },
    },
    {
      name: 'routes-not-from-app-or-cli',
      comment: 'Nothing in modules/ reaches up into the app or the CLI.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/(app|cli)/' },
    },
    {
      name: 'cli-has-no-sql',
      comment: 'The CLI runs operations of modules/; it never opens a query builder itself.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: [QUERIES, 'node_modules/kysely/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
