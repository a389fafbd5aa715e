import * as z from 'zod/mini';
import { safeParse } from '../schema/safe-parse.js';
import { ImportError, LimitError } from '../errors.js';
import { fnv1a } from '../text/fnv1a.js';
import { checkDescription, checkOutcome, checkStep } from '../tasks/limits.js';
import { episodeRecordSchema, type Episode } from '../schema/episode.js';
import { factRecordSchema, type Fact } from '../schema/fact.js';
import { turnRecordSchema, type Turn } from '../schema/turn.js';
import type { MemoryType } from '../schema/common.js';
import { idSchema, userIdSchema } from '../schema/common.js';
import { profileRecordSchema, type ProfileRecord } from '../schema/profile.js';
import { patternRecordSchema, stepRecordSchema, taskRecordSchema, type PatternRecord, type StepRecord, type TaskRecord } from '../schema/task.js';

/**
 * engram's export file: JSON Lines, one object per line.
 *
 *   {"format":"engram-export","version":1, ...header}
 *   {"kind":"episode","record":{...}}          one per record, any order
 *   {"kind":"fact","record":{...}}
 *   {"kind":"turn","record":{...}}           conversation turns
 *   {"kind":"profile","record":{...}}
 *   {"kind":"task"|"step"|"pattern","record":{...}}   agent task episodes
 *   {"kind":"vector","id":"…","userId":"…","memoryKind":"episode","vector":"<base64 float32 LE>"}
 *   {"kind":"end","lines":N,"checksum":"<fnv1a-32 hex of the lines before>"}
 *
 * The closing line makes truncation and corruption detectable: an import
 * checks it before writing anything. Vectors are optional; without them (or
 * from another embedder) the importer re-embeds.
 */
export const EXPORT_FORMAT = 'engram-export';
export const EXPORT_VERSION = 1;

const headerSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  exportedAt: z.number(),
  userId: z.nullable(userIdSchema),
  embedder: z.nullable(z.object({ id: z.string(), dimension: z.number().check(z.int(), z.positive()) })),
});
export type ExportHeader = z.infer<typeof headerSchema>;

const lineSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('episode'), record: episodeRecordSchema }),
  z.object({ kind: z.literal('fact'), record: factRecordSchema }),
  z.object({ kind: z.literal('turn'), record: turnRecordSchema }),
  z.object({ kind: z.literal('profile'), record: profileRecordSchema }),
  z.object({
    kind: z.literal('vector'),
    id: idSchema,
    userId: userIdSchema,
    memoryKind: z.enum(['episode', 'fact', 'turn']),
    vector: z.string().check(z.regex(/^[A-Za-z0-9+/]*={0,2}$/)),
  }),
  z.object({ kind: z.literal('task'), record: taskRecordSchema }),
  z.object({ kind: z.literal('step'), record: stepRecordSchema }),
  z.object({ kind: z.literal('pattern'), record: patternRecordSchema }),
  z.object({ kind: z.literal('end'), lines: z.number().check(z.int(), z.nonnegative()), checksum: z.string() }),
]);

export interface ExportContents {
  header: ExportHeader;
  episodes: Episode[];
  facts: Fact[];
  turns: Turn[];
  profiles: ProfileRecord[];
  tasks: TaskRecord[];
  steps: StepRecord[];
  patterns: PatternRecord[];
  vectors: Map<string, Float32Array>;
}

export function serializeExport(contents: ExportContents): string {
  const lines: string[] = [JSON.stringify(contents.header)];
  for (const record of contents.episodes) lines.push(JSON.stringify({ kind: 'episode', record }));
  for (const record of contents.facts) lines.push(JSON.stringify({ kind: 'fact', record }));
  for (const record of contents.turns) lines.push(JSON.stringify({ kind: 'turn', record }));
  for (const record of contents.profiles) lines.push(JSON.stringify({ kind: 'profile', record }));
  for (const record of contents.tasks) lines.push(JSON.stringify({ kind: 'task', record }));
  for (const record of contents.steps) lines.push(JSON.stringify({ kind: 'step', record }));
  for (const record of contents.patterns) lines.push(JSON.stringify({ kind: 'pattern', record }));
  const kindOf = new Map<string, { userId: string; kind: MemoryType }>();
  for (const r of [...contents.episodes, ...contents.facts, ...contents.turns]) kindOf.set(r.id, { userId: r.userId, kind: r.type });
  for (const [id, vector] of contents.vectors) {
    const owner = kindOf.get(id);
    if (owner) lines.push(JSON.stringify({ kind: 'vector', id, userId: owner.userId, memoryKind: owner.kind, vector: encodeVector(vector) }));
  }
  const checksum = fnv1a(lines.join('\n'));
  lines.push(JSON.stringify({ kind: 'end', lines: lines.length, checksum }));
  return lines.join('\n') + '\n';
}

/**
 * Parses an export and validates every line against the zod schema of its
 * record type (the same schemas the stored records are typed from), plus the
 * checks that need the whole file: the closing line's count and checksum, one
 * line per record, a step's id and index agree, and vector dimensions.
 * Throws ImportError naming the first bad line; nothing is written before
 * this returns.
 */
export function parseExport(text: string): ExportContents {
  const lines = text.split('\n');
  while (lines.length && lines[lines.length - 1]!.trim() === '') lines.pop();
  if (lines.length < 2) throw new ImportError('The export is empty or truncated: it has no closing line.');

  const header = safeParse(headerSchema, safeJson(lines[0]!, 1));
  if (!header.success) {
    throw new ImportError(`Line 1 is not an engram export header (format "${EXPORT_FORMAT}", version ${EXPORT_VERSION}).`, {
      line: 1,
    });
  }

  const last = safeParse(lineSchema, safeJson(lines[lines.length - 1]!, lines.length));
  if (!last.success || last.data.kind !== 'end') {
    throw new ImportError('The export is truncated: its last line is not the closing "end" line.', { line: lines.length });
  }
  const body = lines.slice(0, -1);
  if (last.data.lines !== body.length || last.data.checksum !== fnv1a(body.join('\n'))) {
    throw new ImportError('The export is corrupt: its checksum or line count does not match its contents.', {
      expectedLines: last.data.lines,
      actualLines: body.length,
    });
  }

  const contents: ExportContents = { header: header.data, episodes: [], facts: [], turns: [], profiles: [], tasks: [], steps: [], patterns: [], vectors: new Map() };
  // Two lines for one record would make the import depend on line order: refuse instead.
  const seen = new Set<string>();
  for (let i = 1; i < body.length; i++) {
    const parsed = safeParse(lineSchema, safeJson(body[i]!, i + 1));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ImportError(`Line ${i + 1} is not a valid export line: ${issue?.path.join('.') || 'value'} ${issue?.message ?? ''}`.trim(), {
        line: i + 1,
      });
    }
    const line = parsed.data;
    // Episodes, facts, turns and tasks share one id space (store/unique-ids.ts): one identity for all four.
    const memory = line.kind === 'fact' || line.kind === 'turn' || line.kind === 'task';
    const identity =
      line.kind === 'vector' ? `vector:${line.id}` : line.kind === 'profile' ? `profile:${line.record.userId}` : line.kind === 'end' ? 'end' : `${memory ? 'episode' : line.kind}:${line.record.id}`;
    if (seen.has(identity)) throw new ImportError(`Line ${i + 1}: a second record with the same id (${identity.replace(/^episode:/, '')}).`, { line: i + 1 });
    seen.add(identity);
    if (line.kind === 'episode') contents.episodes.push(line.record);
    else if (line.kind === 'fact') contents.facts.push(line.record);
    else if (line.kind === 'turn') contents.turns.push(line.record);
    else if (line.kind === 'profile') contents.profiles.push(line.record);
    else if (line.kind === 'task') {
      const task = line.record;
      withinLimits(i + 1, () => {
        checkDescription(task.description);
        if (task.outcome) checkOutcome(task.outcome);
      });
      contents.tasks.push(task);
    } else if (line.kind === 'step') {
      if (line.record.id !== `${line.record.taskId}#${line.record.index}`) {
        throw new ImportError(`Line ${i + 1}: a step's id must be "<taskId>#<index>" ("${line.record.taskId}#${line.record.index}").`, { line: i + 1 });
      }
      const step = line.record;
      withinLimits(i + 1, () => checkStep(step, step.index));
      contents.steps.push(step);
    }
    else if (line.kind === 'pattern') contents.patterns.push(line.record);
    else if (line.kind === 'vector') {
      const vector = decodeVector(line.vector);
      if (header.data.embedder && vector.length !== header.data.embedder.dimension) {
        throw new ImportError(`Line ${i + 1}: vector has ${vector.length} dimensions, the header says ${header.data.embedder.dimension}.`, {
          line: i + 1,
        });
      }
      contents.vectors.set(line.id, vector);
    } else throw new ImportError(`Line ${i + 1}: a second "end" line.`, { line: i + 1 });
  }
  return contents;
}

/**
 * The task limits `tasks.start`, `task.log` and `task.complete` enforce hold
 * for imported tasks and steps too: a file (re-sealed by a buggy tool or an
 * attacker) cannot store what the API refuses.
 */
function withinLimits(lineNumber: number, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof LimitError)) throw error;
    throw new ImportError(`Line ${lineNumber}: ${error.message}`, { line: lineNumber, ...error.details });
  }
}

function safeJson(line: string, lineNumber: number): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new ImportError(`Line ${lineNumber} is not valid JSON.`, { line: lineNumber });
  }
}

export function encodeVector(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function decodeVector(base64: string): Float32Array {
  let binary: string;
  try {
    binary = atob(base64);
  } catch {
    throw new ImportError('A vector is not valid base64.');
  }
  if (binary.length % 4 !== 0) throw new ImportError('A vector is not a whole number of float32 values.');
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const vector = new Float32Array(bytes.buffer);
  for (const x of vector) if (!Number.isFinite(x)) throw new ImportError('A vector holds a non-finite value.');
  return vector;
}
