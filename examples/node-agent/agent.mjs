// A Node agent with memory that survives the process: the README's Node quick start, as an app installs it.
// Only engram is installed, and no embedder is named: engram's bundled static model is read from the package
// (node_modules/engram/models/), so no transformers.js, no ONNX runtime and no network.
import { createMemory } from 'engram';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const directory = process.env.AGENT_STORE ?? mkdtempSync(join(tmpdir(), 'engram-agent-'));
const options = { name: 'agent', directory };

const started = performance.now();
const memory = await createMemory(options);
const openedMs = Math.round(performance.now() - started);
await memory.facts.add({ text: 'The user plays the cello in an amateur orchestra' });
await memory.facts.add({ text: 'The user keeps bees on the roof of their flat' });
const first = (await memory.recall('which musical instrument?'))[0]?.memory.text;
const firstAnswerMs = Math.round(performance.now() - started);
await memory.close();

// A later run of the agent: the store on disk has what the first one wrote.
const again = await createMemory(options);
const afterReopen = (await again.recall('bees on the roof'))[0]?.memory.text;
await again.close();
console.log(JSON.stringify({ openedMs, firstAnswerMs, first, afterReopen }));
