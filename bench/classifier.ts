/**
 * Episode classifier evaluation (opt-in; CI does not run it). Runs the real
 * stage-1 call (the one `observe()` makes: same system prompt, exchange
 * rendering and schema, see src/extract/stage1.ts) on every exchange of the
 * labelled set in test/fixtures/episode-classifier.jsonl and prints
 * precision, recall and F1 of `hasEpisode`, with the confusion matrix and the
 * mistakes.
 *
 *   ENGRAM_LLM_BASE_URL=https://api.openai.com/v1 ENGRAM_LLM_API_KEY=sk-... ENGRAM_LLM_MODEL=gpt-4o-mini npm run eval:classifier
 *
 * Optional: ENGRAM_EVAL_CONCURRENCY (parallel calls, default 4),
 * ENGRAM_EVAL_TIMEOUT_MS (per call, default 60000).
 * A call that fails counts as "no episode", exactly as in `observe()`, and is
 * listed separately.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import PQueue from 'p-queue';
import { z } from 'zod';
import { runStage1 } from '../src/extract/stage1.js';
import { PROMPT_VERSION, openAICompatible, type LLMProvider } from '../src/index.js';

export const CLASSIFIER_SET_PATH = fileURLToPath(new URL('../test/fixtures/episode-classifier.jsonl', import.meta.url));

/** The target the issue sets for the stage-1 episode decision. */
export const TARGET = { precision: 0.7, recall: 0.6 };

/** One labelled exchange. `why` says which rule makes it (not) episode-worthy. */
export const classifierExampleSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/, 'lowercase letters, digits and dashes'),
    user: z.string().trim().min(1),
    assistant: z.string().trim().min(1),
    hasEpisode: z.boolean(),
    why: z.string().trim().min(10),
  })
  .strict();
export type ClassifierExample = z.infer<typeof classifierExampleSchema>;

/** Parses the JSON Lines set; a bad line throws with its line number. */
export function parseClassifierSet(text: string): ClassifierExample[] {
  return text
    .split('\n')
    .map((line, i) => ({ line: line.trim(), number: i + 1 }))
    .filter(({ line }) => line.length > 0)
    .map(({ line, number }) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new Error(`episode-classifier.jsonl line ${number}: not JSON`);
      }
      const parsed = classifierExampleSchema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new Error(`episode-classifier.jsonl line ${number}: ${issue.path.join('.') || 'value'} ${issue.message}`);
      }
      return parsed.data;
    });
}

export function loadClassifierSet(path = CLASSIFIER_SET_PATH): ClassifierExample[] {
  return parseClassifierSet(readFileSync(path, 'utf8'));
}

export interface Confusion {
  truePositive: number;
  falsePositive: number;
  trueNegative: number;
  falseNegative: number;
}

/** Precision, recall and F1 of the positive class; 0 where the denominator is 0. */
export function scoresOf(c: Confusion): { precision: number; recall: number; f1: number; accuracy: number } {
  const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);
  const precision = ratio(c.truePositive, c.truePositive + c.falsePositive);
  const recall = ratio(c.truePositive, c.truePositive + c.falseNegative);
  const f1 = ratio(2 * precision * recall, precision + recall);
  const accuracy = ratio(c.truePositive + c.trueNegative, c.truePositive + c.falsePositive + c.trueNegative + c.falseNegative);
  return { precision, recall, f1, accuracy };
}

export interface ClassifierReport extends Confusion {
  total: number;
  precision: number;
  recall: number;
  f1: number;
  accuracy: number;
  /** Wrong decisions, in set order. */
  mistakes: { id: string; expected: boolean; got: boolean; why: string }[];
  /** Calls that produced no decision (counted as "no episode"). */
  failed: { id: string; reason: string }[];
  costUsd: number;
}

/** Runs stage 1 on every example and scores the `hasEpisode` decisions. */
export async function evaluateClassifier(
  llm: LLMProvider,
  examples: readonly ClassifierExample[],
  options: { model?: string; timeoutMs?: number; concurrency?: number; onDecision?: (done: number, total: number) => void } = {},
): Promise<ClassifierReport> {
  const queue = new PQueue({ concurrency: options.concurrency ?? 4 });
  let done = 0;
  const outcomes = await Promise.all(
    examples.map((example) =>
      queue.add(async () => {
        const result = await runStage1(llm, example, { model: options.model, timeoutMs: options.timeoutMs ?? 60_000 });
        options.onDecision?.(++done, examples.length);
        return { example, result };
      }),
    ),
  );

  const report: ClassifierReport = { total: examples.length, truePositive: 0, falsePositive: 0, trueNegative: 0, falseNegative: 0, precision: 0, recall: 0, f1: 0, accuracy: 0, mistakes: [], failed: [], costUsd: 0 };
  for (const { example, result } of outcomes) {
    report.costUsd += result.costUsd;
    if (!result.ok) report.failed.push({ id: example.id, reason: result.reason });
    const got = result.ok && result.value.hasEpisode;
    if (got && example.hasEpisode) report.truePositive++;
    else if (got) report.falsePositive++;
    else if (example.hasEpisode) report.falseNegative++;
    else report.trueNegative++;
    if (got !== example.hasEpisode) report.mistakes.push({ id: example.id, expected: example.hasEpisode, got, why: example.why });
  }
  return { ...report, ...scoresOf(report) };
}

/** The printed report: scores against the target, the confusion matrix, the mistakes and failures. */
export function formatReport(report: ClassifierReport, label: string): string {
  const f = (x: number) => x.toFixed(3);
  const meets = report.precision >= TARGET.precision && report.recall >= TARGET.recall;
  const positives = report.truePositive + report.falseNegative;
  const lines = [
    `Episode classifier (stage 1, prompt ${PROMPT_VERSION}) — ${label} — ${report.total} exchanges (${positives} episode-worthy)`,
    '',
    `precision ${f(report.precision)}   recall ${f(report.recall)}   F1 ${f(report.f1)}   accuracy ${f(report.accuracy)}`,
    `target: precision >= ${TARGET.precision}, recall >= ${TARGET.recall} — ${meets ? 'met' : 'NOT met'}`,
    '',
    'confusion matrix      predicted episode   predicted none',
    `  labelled episode    ${String(report.truePositive).padEnd(18)}  ${report.falseNegative}`,
    `  labelled none       ${String(report.falsePositive).padEnd(18)}  ${report.trueNegative}`,
  ];
  if (report.mistakes.length) {
    lines.push('', 'mistakes:');
    for (const m of report.mistakes) lines.push(`  ${m.id}: labelled ${m.expected ? 'episode' : 'none'}, got ${m.got ? 'episode' : 'none'} (${m.why})`);
  }
  if (report.failed.length) {
    lines.push('', `failed calls (${report.failed.length}, counted as "none"):`);
    for (const x of report.failed) lines.push(`  ${x.id}: ${x.reason}`);
  }
  if (report.costUsd > 0) lines.push('', `cost: ${report.costUsd.toFixed(4)} USD`);
  return lines.join('\n');
}

/**
 * The command: reads the endpoint from the environment (the names the demo
 * server uses), evaluates the labelled set and prints the report. Without an
 * endpoint it says what to set and succeeds, so it is safe to run anywhere.
 * Returns the exit code.
 */
export async function classifierCommand(env: Record<string, string | undefined>, print: (text: string) => void, setPath = CLASSIFIER_SET_PATH): Promise<number> {
  const baseURL = env.ENGRAM_LLM_BASE_URL;
  const model = env.ENGRAM_LLM_MODEL;
  if (!baseURL || !model) {
    print(
      [
        'eval:classifier needs an OpenAI-compatible endpoint. Set:',
        '  ENGRAM_LLM_BASE_URL   e.g. https://api.openai.com/v1 or http://127.0.0.1:8080/v1',
        '  ENGRAM_LLM_API_KEY    the key, if the endpoint needs one',
        '  ENGRAM_LLM_MODEL      e.g. gpt-4o-mini',
        'Nothing was evaluated.',
      ].join('\n'),
    );
    return 0;
  }
  const examples = loadClassifierSet(setPath);
  const llm = openAICompatible({ baseURL, model, ...(env.ENGRAM_LLM_API_KEY ? { apiKey: env.ENGRAM_LLM_API_KEY } : {}) });
  const report = await evaluateClassifier(llm, examples, {
    concurrency: positiveInt(env.ENGRAM_EVAL_CONCURRENCY, 4),
    timeoutMs: positiveInt(env.ENGRAM_EVAL_TIMEOUT_MS, 60_000),
  });
  print(formatReport(report, `${model} at ${new URL(baseURL).host}`));
  return 0;
}

function positiveInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await classifierCommand(process.env, (text) => console.log(text));
}
