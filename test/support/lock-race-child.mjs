/**
 * A contender for one durable store (the lock race test of issue 46), run
 * from the built package (dist/) and kept alive across rounds so that a
 * round costs an open, not a process start. Commands on stdin, one a line:
 *   open <dir> <at> <delayNs>  waits until process.hrtime (CLOCK_MONOTONIC, one clock for every process
 *                              on the machine) reads <at> + <delayNs>, then opens the store in <dir>;
 *                              prints "opened" or "error <code>"
 *   close                      closes the store it holds; prints "closed"
 */
import { createInterface } from 'node:readline';
import { createMemory } from 'engram'; // the package's own exports: Node picks the `node` condition (dist/index.node.js)
import { hashEmbedder } from './hash-embedder.mjs';

const say = (line) => process.stdout.write(`${line}\n`);
let memory;
for await (const line of createInterface({ input: process.stdin })) {
  const [command, directory, at, delay] = line.split(' ');
  if (command === 'open') {
    const start = BigInt(at) + BigInt(delay);
    while (process.hrtime.bigint() < start);
    try {
      memory = await createMemory({ name: 'agent', directory, embedder: hashEmbedder });
      say('opened');
    } catch (error) {
      say(`error ${error.code ?? error.name}`);
    }
  } else if (command === 'close') {
    await memory?.close();
    memory = undefined;
    say('closed');
  }
}
