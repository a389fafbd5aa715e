/**
 * engram's source is layered: a folder imports only from its own layer or
 * the layers below it (a type-only import, erased at build time, may point
 * anywhere), and no module imports itself back through a cycle. CI runs
 * this (`npm run lint:deps`); docs/design.md explains the layers.
 */
const LAYERS = [
  { name: 'foundations', paths: ['errors\\.ts', 'ids\\.ts', 'timers\\.ts', 'lazy-chunk\\.ts', 'default-model-files\\.ts', 'text/', 'public/'] },
  // A record's index document and indexed text are pure functions of the record (schema and time only): the registry of memory kinds declares them.
  { name: 'schemas and time', paths: ['schema/', 'time/', 'search/index-doc\\.ts', 'search/indexed-text\\.ts'] },
  { name: 'services', paths: ['llm/', 'embed/', 'jobs/', 'telemetry/', 'rpc/'] },
  // The registry of memory kinds (its tables, schemas, indexes) is what the store, the change feed and the id space are built from.
  { name: 'store', paths: ['store/', 'memories/registry\\.ts', 'memories/memory-kind\\.ts'] },
  { name: 'search core', paths: ['search/(?!index-doc\\.ts|indexed-text\\.ts)'] },
  { name: 'index upkeep', paths: ['index-sync/'] },
  { name: 'memory features', paths: ['facts/', 'turns/', 'lifecycle/', 'memories/(?!registry\\.ts|memory-kind\\.ts)', 'retention/', 'recall/', 'tasks/', 'extract/', 'portability/', 'replication/', 'users/', 'engine-context\\.ts'] },
  { name: 'operations', paths: ['operations/'] },
  { name: 'engine', paths: ['engine/', 'engine\\.ts'] },
  { name: 'entry points', paths: ['facade/', 'extension/', 'hub/', 'ai/', 'langchain/', 'cli/', 'index\\.ts', 'index\\.node\\.ts', 'server\\.ts', 'transformers\\.ts'] },
];

const pathsOf = (layers) => `^src/(${layers.flatMap((layer) => layer.paths).join('|')})`;

module.exports = {
  forbidden: [
    ...LAYERS.slice(0, -1).map((layer, i) => ({
      name: `layer: ${layer.name}`,
      comment: `${layer.name} imports only from its own layer or below (${LAYERS.slice(0, i).map((l) => l.name).join(', ') || 'nothing'})`,
      severity: 'error',
      from: { path: pathsOf([layer]) },
      to: { path: pathsOf(LAYERS.slice(i + 1)), dependencyTypesNot: ['type-only'] },
    })),
    {
      name: 'layer: every file has one',
      comment: 'a new top-level folder or file in src/ gets a layer in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: pathsOf(LAYERS) },
      to: {},
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/.*\\.d\\.ts$' },
  },
};
