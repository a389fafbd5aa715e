import { describe, expect, it } from 'vitest';
import { ImportError } from '../../src/errors.js';
import { buildFact } from '../../src/memories/facts/build-fact.js';
import { parseExport, serializeExport } from '../../src/portability/export-format.js';

const fact = buildFact({ userId: 'default', id: 'f1', text: 'Likes green tea' }, 1_700_000_000_000);
const file = serializeExport({
  header: { format: 'engram-export', version: 1, exportedAt: 1, userId: null, embedder: { id: 'e', dimension: 2 } },
  memories: new Map([['fact', [fact]]]),
  profiles: [],
  tasks: [],
  steps: [],
  patterns: [],
  vectors: new Map([['f1', Float32Array.from([0.6, 0.8])]]),
});

describe('export format', () => {
  it('round-trips records and vectors', () => {
    const parsed = parseExport(file);
    expect(parsed.memories.get('fact')).toEqual([fact]);
    expect([...parsed.vectors.get('f1')!]).toEqual([Float32Array.from([0.6])[0], Float32Array.from([0.8])[0]]);
  });

  it('refuses a truncated file', () => {
    const lines = file.trim().split('\n');
    expect(() => parseExport(lines.slice(0, -1).join('\n'))).toThrow(ImportError);
    expect(() => parseExport(file.slice(0, file.length - 20))).toThrow(/truncated|JSON/);
  });

  it('refuses a file whose contents were altered', () => {
    expect(() => parseExport(file.replace('green tea', 'black tea'))).toThrow(/checksum/);
  });

  it('refuses an unknown version', () => {
    expect(() => parseExport(file.replace('"version":1', '"version":99'))).toThrow(/header/);
  });
});
