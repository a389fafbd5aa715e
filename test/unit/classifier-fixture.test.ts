import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLASSIFIER_SET_PATH, classifierExampleSchema, loadClassifierSet, parseClassifierSet } from '../../bench/classifier.js';

/** The labelled set behind `npm run eval:classifier` (issue 3, "Classifier quality"). */
describe('test/fixtures/episode-classifier.jsonl', () => {
  const examples = loadClassifierSet();

  it('every line is one well-formed example', () => {
    const lines = readFileSync(CLASSIFIER_SET_PATH, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(examples.length);
    for (const line of lines) expect(classifierExampleSchema.safeParse(JSON.parse(line)).success).toBe(true);
  });

  it('holds at least 60 exchanges, half episode-worthy (50% ± 5%), with unique ids', () => {
    expect(examples.length).toBeGreaterThanOrEqual(60);
    const share = examples.filter((e) => e.hasEpisode).length / examples.length;
    expect(share).toBeGreaterThanOrEqual(0.45);
    expect(share).toBeLessThanOrEqual(0.55);
    expect(new Set(examples.map((e) => e.id)).size).toBe(examples.length);
  });

  it('includes long-but-routine negatives and short-but-meaningful positives', () => {
    const size = (e: { user: string; assistant: string }) => e.user.length + e.assistant.length;
    // Length must not be a shortcut: some negatives are longer than any positive, many positives are one or two sentences.
    const longestPositive = Math.max(...examples.filter((e) => e.hasEpisode).map(size));
    expect(examples.filter((e) => !e.hasEpisode && size(e) > longestPositive).length).toBeGreaterThanOrEqual(5);
    expect(examples.filter((e) => e.hasEpisode && size(e) <= 200).length).toBeGreaterThanOrEqual(5);
  });

  it('no exchange appears twice', () => {
    expect(new Set(examples.map((e) => e.user)).size).toBe(examples.length);
  });

  it('a malformed line is reported with its line number', () => {
    const good = JSON.stringify(examples[0]);
    expect(() => parseClassifierSet(`${good}\n{"id":"x","user":"hi"}`)).toThrow(/line 2: assistant/);
    expect(() => parseClassifierSet(`${good}\nnot json`)).toThrow(/line 2: not JSON/);
  });
});
