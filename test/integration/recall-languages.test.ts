/**
 * Recall in languages other than English (issue 21, "any language"): the
 * offline model is English-only, so these queries are found by the keyword
 * side, which must split unspaced scripts into words and fold Latin
 * diacritics (src/text/tokenize.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Memory } from '../../src/index.js';
import { memoryFixture } from '../support/memory-fixture.js';

const shared = memoryFixture({ closeAfter: 'all' });
let memory: Memory;
beforeAll(async () => {
  // Keyword side only, so each assertion is about the tokenizer (the English model already folds accents on the dense side).
  memory = await shared.open({ ranking: { denseWeight: 0 } });
  await memory.facts.addMany([
    { text: '用户每天早上喝绿茶，不喝咖啡' },
    { text: '用户的女儿在上海读大学' },
    { text: 'ユーザーは毎週土曜日に寿司を食べます' },
    { text: 'ユーザーの猫の名前はミケです' },
    { text: "L'utilisateur a déménagé à Zürich l'été dernier" },
    { text: 'The user plays the cello in an amateur orchestra' },
  ]);
});

const top = async (query: string) => (await memory.recall(query, { k: 3 }))[0]?.memory.text;

describe('recall across languages', () => {
  it('finds a Chinese fact from a word inside an unspaced sentence', async () => {
    expect(await top('上海')).toBe('用户的女儿在上海读大学');
    expect(await top('绿茶')).toBe('用户每天早上喝绿茶，不喝咖啡');
  });

  it('finds a Japanese fact from a word inside an unspaced sentence', async () => {
    expect(await top('寿司')).toBe('ユーザーは毎週土曜日に寿司を食べます');
    expect(await top('猫')).toBe('ユーザーの猫の名前はミケです');
  });

  it('matches Latin words with or without their diacritics', async () => {
    expect(await top('Zurich')).toBe("L'utilisateur a déménagé à Zürich l'été dernier");
    expect(await top('demenage')).toBe("L'utilisateur a déménagé à Zürich l'été dernier");
    expect(await top('déménagé')).toBe("L'utilisateur a déménagé à Zürich l'été dernier");
  });
});
