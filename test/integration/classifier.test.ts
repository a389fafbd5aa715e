import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifierCommand, evaluateClassifier, loadClassifierSet, type ClassifierExample } from '../../bench/classifier.js';
import { STAGE1_SYSTEM } from '../../src/extract/prompts.js';
import { openAICompatible } from '../../src/index.js';
import { startOpenAIServer, type ReceivedRequest, type UpstreamReply } from '../support/openai-server.js';

/**
 * `npm run eval:classifier` against a real HTTP server on loopback that
 * plays the model: it answers each exchange with a scripted `hasEpisode`,
 * so the confusion matrix, and every score computed from it, are known.
 */
const examples = loadClassifierSet();
const positives = examples.filter((e) => e.hasEpisode);
const negatives = examples.filter((e) => !e.hasEpisode);
const missed = new Set(positives.slice(0, 3).map((e) => e.id)); // false negatives
const broken = positives[3]!.id; // HTTP 500: a failed call counts as "none"
const invented = new Set(negatives.slice(0, 2).map((e) => e.id)); // false positives

/** Which labelled exchange a request carries: the user message is rendered verbatim inside <user_message>. */
function exampleOf(req: ReceivedRequest): ClassifierExample {
  const input: string = req.body.messages[1].content;
  const found = examples.find((e) => input.includes(`<user_message>\n${e.user}\n</user_message>`));
  if (!found) throw new Error(`unknown exchange: ${input.slice(0, 200)}`);
  return found;
}

function modelReply(req: ReceivedRequest): UpstreamReply {
  const example = exampleOf(req);
  if (example.id === broken) return { status: 500, body: '{"error":{"message":"overloaded"}}' };
  const hasEpisode = missed.has(example.id) ? false : invented.has(example.id) ? true : example.hasEpisode;
  return { json: { facts: [], hasEpisode } };
}

let upstream: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  upstream = await startOpenAIServer(modelReply);
});
afterAll(() => upstream.close());

// 4 of the positives end up "none" (3 missed, 1 failed call); 2 negatives are called episodes.
const tp = positives.length - 4;
const fp = 2;
const expectedPrecision = tp / (tp + fp);
const expectedRecall = tp / positives.length;
const expectedF1 = (2 * expectedPrecision * expectedRecall) / (expectedPrecision + expectedRecall);

describe('eval:classifier', () => {
  it('runs the real stage-1 call on every exchange and scores the episode decisions', async () => {
    const start = upstream.requests.length;
    const llm = openAICompatible({ baseURL: upstream.url, model: 'judge' });
    const report = await evaluateClassifier(llm, examples, { concurrency: 4 });

    const sent = upstream.requests.slice(start);
    expect(sent).toHaveLength(examples.length);
    expect(new Set(sent.map((r) => exampleOf(r).id)).size).toBe(examples.length);
    for (const r of sent) {
      expect(r.body.model).toBe('judge');
      expect(r.body.messages[0]).toEqual({ role: 'system', content: STAGE1_SYSTEM });
      expect(r.body.response_format.json_schema.schema.required).toEqual(expect.arrayContaining(['facts', 'hasEpisode']));
    }

    expect(report).toMatchObject({ total: examples.length, truePositive: tp, falseNegative: 4, falsePositive: fp, trueNegative: negatives.length - fp });
    expect(report.precision).toBeCloseTo(expectedPrecision, 10);
    expect(report.recall).toBeCloseTo(expectedRecall, 10);
    expect(report.f1).toBeCloseTo(expectedF1, 10);
    expect(report.failed).toEqual([{ id: broken, reason: expect.stringMatching(/HTTP 500|overloaded/) }]);
    expect(report.mistakes.map((m) => m.id).sort()).toEqual([...missed, broken, ...invented].sort());
  });

  it('the command reads the endpoint from the environment and prints precision, recall, F1 and the confusion matrix', async () => {
    let printed = '';
    const code = await classifierCommand({ ENGRAM_LLM_BASE_URL: upstream.url, ENGRAM_LLM_API_KEY: 'sk-loopback', ENGRAM_LLM_MODEL: 'judge' }, (t) => (printed += t));
    expect(code).toBe(0);
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer sk-loopback');
    expect(printed).toContain(`precision ${expectedPrecision.toFixed(3)}   recall ${expectedRecall.toFixed(3)}   F1 ${expectedF1.toFixed(3)}`);
    expect(printed).toMatch(new RegExp(`labelled episode\\s+${tp}\\s+4`));
    expect(printed).toMatch(new RegExp(`labelled none\\s+${fp}\\s+${negatives.length - fp}`));
    expect(printed).toMatch(/target: precision >= 0.7, recall >= 0.6 — met/);
    expect(printed).toContain(`${broken}: `);
  });

  it('without an endpoint it says what to set, calls nothing, and exits 0', async () => {
    const start = upstream.requests.length;
    let printed = '';
    expect(await classifierCommand({}, (t) => (printed += t))).toBe(0);
    expect(printed).toMatch(/ENGRAM_LLM_BASE_URL[\s\S]*ENGRAM_LLM_API_KEY[\s\S]*ENGRAM_LLM_MODEL/);
    expect(upstream.requests.length).toBe(start);
  });
});
