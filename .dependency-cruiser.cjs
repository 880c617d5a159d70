/**
 * The module rules `npm run lint` holds the code to (dependency-cruiser): no import cycles, type-only imports
 * included, and no import of another module's inner files. A module with an entry file (`index.ts`, which says
 * what the module owns) is imported through it; its `tables.ts` (row types, for src/database.ts), `schema.ts` and `service.ts` (its API's schemas and rules) and
 * `routes.ts` (for src/app.ts) are the only other files outside code may name.
 */
/** Modules with an entry file: everything outside them imports their index.ts. */
const CLOSED = '(contract|issues|pages|releases|search|visits)'

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'A cycle makes load order matter and two modules one; move the shared piece down or pass it in.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-deep-import',
      comment: 'Import another module through its index.ts (or its tables.ts / routes.ts), never its inner files.',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/${CLOSED}/` },
      to: { path: `^src/${CLOSED}/`, pathNot: `^src/${CLOSED}/(index|tables|routes|schema|service|limits)\\.ts$` },
    },
    {
      name: 'no-deep-import-between-modules',
      comment: 'Import another module through its index.ts (or its tables.ts / routes.ts), never its inner files.',
      severity: 'error',
      from: { path: `^src/${CLOSED}/` },
      to: { path: `^src/${CLOSED}/`, pathNot: [`^src/$1/`, `^src/${CLOSED}/(index|tables|routes|schema|service|limits)\\.ts$`] },
    },
    {
      name: 'contract-stands-alone',
      comment: 'The wire contract is what the store maps to: it imports no store and no feature.',
      severity: 'error',
      from: { path: '^src/contract/' },
      to: { path: '^src/', pathNot: '^src/(contract|util)/' },
    },
    {
      name: 'db-imports-no-feature',
      comment: 'The database layer is generic: the service composes its schema in src/database.ts, not db/ from features.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: '^src/(db/|util/|config\\.ts$|errors\\.ts$)' },
    },
    {
      name: 'migrations-frozen',
      comment: 'A shipped migration must keep doing what it did: it copies what it needs instead of importing the service.',
      severity: 'error',
      from: { path: '^src/db/migrations/' },
      to: { path: '^src/', pathNot: '^src/db/migrations/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a cycle of types still ties two modules into one.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
}
