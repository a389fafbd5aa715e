/**
 * A contender for one store's LOCK (the lock race test of issue 46): the lock
 * module itself, run from source with tsx, so that a round's two attempts
 * start within microseconds of their agreed instant and the seeded offsets
 * between them sweep the lock's own steps. Commands on stdin, one a line:
 *   lock <path> <at> <delayNs>  waits until process.hrtime (CLOCK_MONOTONIC, one clock for every process
 *                               on the machine) reads <at> + <delayNs>, then takes the lock at <path>
 *                               and keeps it; prints "<path> locked" or "<path> error <code>"
 */
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { acquireLock } from '../../src/store/durable/store-lock.ts';

const say = (line) => process.stdout.write(`${line}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const [command, path, at, delay] = line.split(' ');
  if (command === 'lock') {
    const start = BigInt(at) + BigInt(delay);
    while (process.hrtime.bigint() < start);
    try {
      acquireLock(path, dirname(path));
      say(`${path} locked`);
    } catch (error) {
      say(`${path} error ${error.code ?? error.name}`);
    }
  }
}
