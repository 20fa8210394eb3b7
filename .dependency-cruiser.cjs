// The layering rule of src/ (docs/architecture.md), checked by `npm run lint`: imports flow
//   app, cli  →  modules/*/routes  →  http  →  modules/* services  →  modules/*/queries  →  platform, domain
// and never back; no import cycles anywhere.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'foundation-stays-at-the-bottom',
      comment:
        'platform/ (database, configuration) and domain/ (pure rules) know nothing of the layers above.',
      severity: 'error',
      from: { path: '^src/(platform|domain)/' },
      to: { path: '^src/(app|cli|http|modules)/' },
    },
    {
      name: 'domain-is-pure',
      comment: 'domain/ holds pure rules: no database.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/platform/' },
    },
    {
      name: 'queries-only-reach-down',
      comment: 'A queries file reads and writes rows; it never calls a service, a route or HTTP.',
      severity: 'error',
      from: { path: '^src/modules/.+/queries\\.ts$' },
      to: { path: ['^src/(app|cli|http)/', '^src/modules/.+(service|routes)\\.ts$'] },
    },
    {
      name: 'services-know-no-http',
      comment:
        'Services (every module file but routes) are shared by HTTP and the CLI: no Fastify, no routes.',
      severity: 'error',
      from: { path: '^src/modules/', pathNot: 'routes\\.ts$' },
      to: { path: ['^src/(app|cli)/', 'routes\\.ts$', 'node_modules/fastify'] },
    },
    {
      name: 'services-use-only-http-schemas',
      comment: 'Of http/, services may use the published schemas (the contract types), nothing else.',
      severity: 'error',
      from: { path: '^src/modules/', pathNot: 'routes\\.ts$' },
      to: { path: '^src/http/', pathNot: '^src/http/schemas/' },
    },
    {
      name: 'http-below-routes',
      comment: 'The HTTP plugins serve the routes; they never import a route, the app or the CLI.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: ['^src/(app|cli)/', 'routes\\.ts$'] },
    },
    {
      name: 'schemas-are-leaves',
      comment: 'Request and response schemas (the published contract) depend on nothing but domain/.',
      severity: 'error',
      from: { path: '^src/http/schemas/' },
      to: { path: '^src/', pathNot: '^src/(domain|http/schemas)/' },
    },
    {
      name: 'routes-not-from-app-or-cli',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/(app|cli)/' },
    },
    {
      name: 'cli-has-no-sql',
      comment: 'The CLI runs operations of modules/; it never opens a query builder itself.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: ['^src/modules/.+/queries\\.ts$', 'node_modules/kysely'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
