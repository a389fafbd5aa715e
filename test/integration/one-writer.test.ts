import { afterEach, describe, expect, it } from 'vitest';
import { EngramDatabase } from '../../src/store/database.js';
import { freshIndexedDB } from '../support/memory.js';

/**
 * One readwrite transaction at a time per database (src/store/one-writer.ts):
 * Chromium deletes an origin's whole IndexedDB when it crashed with two
 * unfinished readwrite transactions (test/browser/crash-on-disk.test.ts), so
 * engram never runs two side by side, even on tables that share nothing and
 * from two connections (tabs). Real IndexedDB scheduling (fake-indexeddb).
 */
const open: EngramDatabase[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});
function database(factory = freshIndexedDB(), name = 'one-writer'): EngramDatabase {
  const db = new EngramDatabase(name, factory);
  open.push(db);
  return db;
}

/** Two readwrite transactions on tables with nothing in common, started together; what ran when. */
async function interleaving(first: EngramDatabase, second: EngramDatabase): Promise<string> {
  const log: string[] = [];
  const write = (db: EngramDatabase, tag: string) =>
    db.transaction('rw', db.events, async () => {
      for (let n = 0; n < 3; n++) {
        await db.events.add({ type: tag, userId: 'u', at: n } as never);
        log.push(`${tag}${n}`);
      }
    });
  const writeJobs = (db: EngramDatabase, tag: string) =>
    db.transaction('rw', db.jobs, async () => {
      for (let n = 0; n < 3; n++) {
        await db.jobs.put({ id: `${tag}${n}` } as never);
        log.push(`${tag}${n}`);
      }
    });
  await Promise.all([write(first, 'a'), writeJobs(second, 'b')]);
  return log.join(' ');
}

describe('one writer at a time', () => {
  it('serialises readwrite transactions on disjoint tables in one engine', async () => {
    const db = database();
    await db.open();
    expect(await interleaving(db, db)).toBe('a0 a1 a2 b0 b1 b2');
  });

  it('and across two connections to the same database (two tabs)', async () => {
    const factory = freshIndexedDB();
    const [one, two] = [database(factory), database(factory)];
    await one.open();
    await two.open();
    expect(await interleaving(one, two)).toBe('a0 a1 a2 b0 b1 b2');
  });

  it('leaves readonly transactions concurrent', async () => {
    const db = database();
    await db.open();
    const log: string[] = [];
    const read = (tag: string, table: 'events' | 'jobs') =>
      db.transaction('r', db.table(table), async () => {
        for (let n = 0; n < 3; n++) {
          await db.table(table).count();
          log.push(`${tag}${n}`);
        }
      });
    await Promise.all([read('a', 'events'), read('b', 'jobs')]);
    expect(log.join(' ')).not.toBe('a0 a1 a2 b0 b1 b2');
  });
});
