/**
 * A child process on a durable store (tests of issue 17), run from the built
 * package (dist/) so each start is quick.
 *   node durable-child.mjs write <dir> <round>  writes in a loop until killed; prints each acknowledged write
 *   node durable-child.mjs open <dir>           opens the store, prints "opened" or the error's code and pid, waits for stdin to close
 *   node durable-child.mjs add <dir> <text>     adds one fact, closes, prints its id
 */
import { createMemory } from 'engram'; // the package's own exports: Node picks the `node` condition (dist/index.node.js)
import { hashEmbedder } from './hash-embedder.mjs';

const [mode, directory, arg] = process.argv.slice(2);
const say = (line) => process.stdout.write(`${line}\n`);
const open = () => createMemory({ name: 'agent', directory, embedder: hashEmbedder, tasks: { flushAt: 1000, flushIntervalMs: 60_000 } });

if (mode === 'write') {
  const round = Number(arg);
  const memory = await open();
  say('ready');
  const context = { domain: 'crash-test', complexity: 'simple', tags: [] };
  for (let i = 0; ; i++) {
    const tag = `r${round}n${i}`;
    const fact = await memory.facts.add({ text: `fact ${tag} zeta${tag} remembers ${tag}x`, userId: 'u1' }, { merge: false }); // raw inserts: the test is about durability, not merging
    say(`fact ${fact.id} ${fact.text}`);
    const episode = await memory.episodes.add({ text: `${tag}met ${tag}with ${tag}team ${tag}today`, userId: 'u1' });
    say(`episode ${episode.id}`);
    const group = [0, 1, 2, 3, 4].map((j) => ({ text: `bulk ${tag}g${j} member grp${tag}`, userId: 'u2' }));
    say(`group-begin grp${tag} ${group.length}`);
    const ids = await memory.facts.addMany(group, { returnRecords: false });
    say(`group ${ids.join(',')}`);
    const task = await memory.tasks.start({ description: `task ${tag}`, type: 'testing', context });
    say(`task ${task.id}`);
    for (let s = 0; s < 3; s++) task.log({ tool: 'shell', action: `step ${s}`, result: { kind: 'success', output: 'ok' }, latencyMs: 1 });
    await task.flush();
    say(`steps ${task.id} 3`);
  }
} else if (mode === 'open') {
  try {
    const memory = await open();
    say('opened');
    process.stdin.resume();
    process.stdin.on('end', async () => {
      await memory.close();
      process.exit(0);
    });
  } catch (error) {
    say(`error ${error.code} ${error.details?.pid}`);
    process.exit(0);
  }
} else if (mode === 'add') {
  const memory = await open();
  const fact = await memory.facts.add({ text: arg }, { merge: false });
  await memory.close();
  say(`added ${fact.id}`);
}
