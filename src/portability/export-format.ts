import * as z from 'zod/mini';
import { safeParse } from '../schema/safe-parse.js';
import { ImportError, LimitError } from '../errors.js';
import { fnv1a } from '../text/fnv1a.js';
import { checkDescription, checkOutcome, checkStep } from '../tasks/limits.js';
import { memoryKinds, type MemoryKind, type StoredMemory } from '../memories/registry.js';
import { idSchema, userIdSchema } from '../schema/common.js';
import { profileRecordSchema, type ProfileRecord } from '../schema/profile.js';
import { patternRecordSchema, stepRecordSchema, taskRecordSchema, type PatternRecord, type StepRecord, type TaskRecord } from '../schema/task.js';

/**
 * engram's export file: JSON Lines, one object per line.
 *
 *   {"format":"engram-export","version":1, ...header}
 *   {"kind":"fact","record":{...}}            one per record, any order: a memory's
 *   {"kind":"episode","record":{...}}         kind is its type (memories/registry.ts),
 *   {"kind":"turn","record":{...}}            its record its kind's schema
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

/** A line of an export whose memory kinds are `kinds`: each kind's records, and the engine's own. */
function lineSchemaOf(kinds: readonly MemoryKind[]): z.ZodMiniType<ExportLine> {
  const memoryLines = kinds.map((kind) => z.object({ kind: z.literal(kind.type), record: kind.schema }));
  return z.discriminatedUnion('kind', [
    ...(memoryLines as [(typeof memoryLines)[number]]),
    z.object({ kind: z.literal('profile'), record: profileRecordSchema }),
    z.object({
      kind: z.literal('vector'),
      id: idSchema,
      userId: userIdSchema,
      memoryKind: z.enum(kinds.map((kind) => kind.type) as [string, ...string[]]),
      vector: z.string().check(z.regex(/^[A-Za-z0-9+/]*={0,2}$/)),
    }),
    z.object({ kind: z.literal('task'), record: taskRecordSchema }),
    z.object({ kind: z.literal('step'), record: stepRecordSchema }),
    z.object({ kind: z.literal('pattern'), record: patternRecordSchema }),
    z.object({ kind: z.literal('end'), lines: z.number().check(z.int(), z.nonnegative()), checksum: z.string() }),
  ]) as unknown as z.ZodMiniType<ExportLine>;
}

/** Every line the engine's own records make (a memory kind's has its kind's `type` instead). */
type EngineLine =
  | { kind: 'profile'; record: ProfileRecord }
  | { kind: 'vector'; id: string; userId: string; memoryKind: string; vector: string }
  | { kind: 'task'; record: TaskRecord }
  | { kind: 'step'; record: StepRecord }
  | { kind: 'pattern'; record: PatternRecord }
  | { kind: 'end'; lines: number; checksum: string };

/** A line of a memory: its kind's type, and its record. */
type MemoryLine = { kind: string; record: StoredMemory };
type ExportLine = EngineLine | MemoryLine;

export interface ExportContents {
  header: ExportHeader;
  /** Each memory kind's records, by its type ('fact'); a kind with none may be absent. */
  memories: Map<string, StoredMemory[]>;
  profiles: ProfileRecord[];
  tasks: TaskRecord[];
  steps: StepRecord[];
  patterns: PatternRecord[];
  vectors: Map<string, Float32Array>;
}

export function serializeExport(contents: ExportContents): string {
  const lines: string[] = [JSON.stringify(contents.header)];
  const memories = memoryKinds().flatMap((kind) => contents.memories.get(kind.type) ?? []);
  for (const record of memories) lines.push(JSON.stringify({ kind: record.type, record }));
  for (const record of contents.profiles) lines.push(JSON.stringify({ kind: 'profile', record }));
  for (const record of contents.tasks) lines.push(JSON.stringify({ kind: 'task', record }));
  for (const record of contents.steps) lines.push(JSON.stringify({ kind: 'step', record }));
  for (const record of contents.patterns) lines.push(JSON.stringify({ kind: 'pattern', record }));
  const kindOf = new Map<string, { userId: string; kind: string }>();
  for (const r of memories) kindOf.set(r.id, { userId: r.userId, kind: r.type });
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

  const kinds = memoryKinds();
  const lineSchema = lineSchemaOf(kinds);
  const parsedLast = safeParse(lineSchema, safeJson(lines[lines.length - 1]!, lines.length));
  const last = parsedLast.success ? (parsedLast.data as EngineLine) : undefined;
  if (last?.kind !== 'end') {
    throw new ImportError('The export is truncated: its last line is not the closing "end" line.', { line: lines.length });
  }
  const body = lines.slice(0, -1);
  if (last.lines !== body.length || last.checksum !== fnv1a(body.join('\n'))) {
    throw new ImportError('The export is corrupt: its checksum or line count does not match its contents.', {
      expectedLines: last.lines,
      actualLines: body.length,
    });
  }

  const contents: ExportContents = { header: header.data, memories: new Map(kinds.map((kind) => [kind.type, []])), profiles: [], tasks: [], steps: [], patterns: [], vectors: new Map() };
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
    const memories = contents.memories.get(parsed.data.kind);
    const line = parsed.data as EngineLine;
    // Memories of every kind and tasks share one id space (store/unique-ids.ts): one identity for all of them.
    const identity = memories
      ? `record:${(parsed.data as MemoryLine).record.id}`
      : line.kind === 'vector' ? `vector:${line.id}` : line.kind === 'profile' ? `profile:${line.record.userId}` : line.kind === 'end' ? 'end' : `${line.kind === 'task' ? 'record' : line.kind}:${line.record.id}`;
    if (seen.has(identity)) throw new ImportError(`Line ${i + 1}: a second record with the same id (${identity.replace(/^record:/, '')}).`, { line: i + 1 });
    seen.add(identity);
    if (memories) memories.push((parsed.data as MemoryLine).record);
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
