import * as z from 'zod/mini';
import type { ParsedTimeQuery, TimeQueryParser } from '../time/query-parser.js';

/**
 * `createMemory({ timeParser })`: an object with `language` (a BCP 47 tag),
 * `parse()` and, optionally, `asksForContent()` (time/query-parser.ts).
 * Each is read once into a frozen copy, and the copy is what is checked and
 * kept (its methods call the app's with the app's object as `this`), so a
 * getter that answers otherwise later changes nothing.
 */
export const timeParserSchema = z.pipe(z.transform(copyOfParser), z.custom<TimeQueryParser>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as TimeQueryParser).language === 'string' &&
    /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test((v as TimeQueryParser).language) &&
    typeof (v as TimeQueryParser).parse === 'function' &&
    ((v as TimeQueryParser).asksForContent === undefined || typeof (v as TimeQueryParser).asksForContent === 'function'),
  'must be a time parser: { language (a BCP 47 tag such as "fr"), parse(query, now, timeZone), asksForContent?(rest) }',
));

function copyOfParser(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const { language, parse, asksForContent } = value as Record<string, unknown>;
  const bound = (method: unknown) => (typeof method === 'function' ? (...args: unknown[]) => (method as (...a: unknown[]) => unknown).apply(value, args) : method);
  return Object.freeze({ language, parse: bound(parse), ...(asksForContent === undefined ? {} : { asksForContent: bound(asksForContent) }) });
}

/** A time in local ms within a Date's range, or ±Infinity for an open side; never NaN. */
const localTime = z.custom<number>(
  (v) => typeof v === 'number' && (Number.isFinite(v) ? Math.abs(v) <= MAX_DATE_MS : !Number.isNaN(v)),
  'must be a number of local ms (or ±Infinity for an open side)',
);
/** The largest time a Date holds (ECMA-262 time values). */
const MAX_DATE_MS = 8.64e15;
const offset = z.number().check(z.int(), z.gte(0));
/** More windows or references than a question can name: a parser answering them is broken. */
const MOST = 64;

/**
 * What a time parser answers about one question (time/query-parser.ts),
 * checked before recall uses it: spans inside the question, windows whose
 * start is before their end, session places that are places. Built once
 * per question length and kept (`SCHEMAS_KEPT` of them): building a zod
 * schema costs far more than checking an answer with it, and recall checks
 * one answer per question.
 */
export function parsedTimeQuerySchema(queryLength: number): ReturnType<typeof buildParsedTimeQuerySchema> {
  let schema = schemasByLength.get(queryLength);
  if (!schema) {
    if (schemasByLength.size >= SCHEMAS_KEPT) schemasByLength.clear();
    schema = buildParsedTimeQuerySchema(queryLength);
    schemasByLength.set(queryLength, schema);
  }
  return schema;
}

/** Question lengths whose schema is kept; past that many, they are built afresh. */
const SCHEMAS_KEPT = 256;
const schemasByLength = new Map<number, ReturnType<typeof buildParsedTimeQuerySchema>>();

function buildParsedTimeQuerySchema(queryLength: number) {
  const span = (v: { start: number; end: number }) => v.start <= v.end && v.end <= queryLength;
  const spanMessage = `start and end must be offsets into the question (0 to ${queryLength}), start first`;
  return z.object({
    windows: z.array(
      z.object({ start: offset, end: offset, from: localTime, to: localTime, yearImplied: z.optional(z.boolean()) }).check(
        z.refine(span, spanMessage),
        z.refine((w) => w.from < w.to, 'from must be before to'),
      ),
    ).check(z.maxLength(MOST)),
    sessions: z.array(
      z.object({ start: offset, end: offset, from: z.enum(['first', 'last', 'current']), index: offset, count: z.number().check(z.int(), z.gte(1)) }).check(z.refine(span, spanMessage)),
    ).check(z.maxLength(MOST)),
  }) satisfies z.ZodMiniType<ParsedTimeQuery>;
}
