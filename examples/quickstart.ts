/**
 * The smallest complete use of engram in Node: store a few memories, recall
 * them, render prompt context. No embedder is named: engram's bundled static
 * model (models/) embeds, with an in-memory IndexedDB (fake-indexeddb), so it
 * needs no network.
 *
 *   npm run example
 */
import { indexedDB, IDBKeyRange } from 'fake-indexeddb';
import { createMemory } from '../src/index.js';

const memory = await createMemory({ name: 'quickstart', indexedDB, IDBKeyRange });

await memory.facts.add({ text: 'Lives in Porto and works as a data engineer', category: 'profile' });
await memory.facts.add({ text: 'Prefers short answers with code examples', category: 'preference' });
await memory.episodes.add({
  goal: 'Choose a database for the analytics side project',
  context: 'Compared Postgres, SQLite and DuckDB for a 50 GB event log',
  outcome: 'Went with DuckDB: columnar scans were 20x faster on the sample queries',
  quality: 'success',
  tags: ['databases', 'analytics'],
});

const hits = await memory.recall('which database did we pick for analytics?', { k: 3 });
for (const hit of hits) console.log(hit.score.toFixed(3), hit.memory.type, hit.memory.text.split('\n')[0]);
console.log();
console.log(memory.formatContext(hits, { timeZone: 'Europe/Lisbon' }));
await memory.close();
