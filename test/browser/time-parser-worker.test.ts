import { describe, expect, it } from 'vitest';
import { useDemoInChromium } from '../support/demo-in-chromium.js';
import { BARE_PAGE_DIR, SAFETY_NET_MS } from '../support/browser.js';

const demo = useDemoInChromium({ pageDir: BARE_PAGE_DIR });

/**
 * createMemory({ timeParser }) with the engine in its Web Worker (the
 * browser's default): the parser is a function on the page, which cannot be
 * cloned into the worker; recall calls it through the worker's channel, and
 * a wrong answer comes back as the ValidationError it is.
 */
describe('a time parser on the page, the engine in its worker', () => {
  it('ranks the day the parser names first, and refuses a wrong answer', async () => {
    const context = await demo.browser.newContext();
    const page = await context.newPage();
    await page.goto(demo.url);
    await page.waitForFunction(() => (window as unknown as { engramDemo?: { ready: boolean } }).engramDemo?.ready, null, { timeout: SAFETY_NET_MS });

    const found = await page.evaluate(async () => {
      const demo = (window as unknown as { engramDemo: { open(o: unknown): Promise<import('../../src/index.js').Memory> } }).engramDemo;
      const DAY = 86_400_000;
      let calls = 0;
      let broken = false;
      // "hier" is the day before now's wall-clock day (local ms, time/query-parser.ts).
      const timeParser = {
        language: 'fr',
        parse(query: string, now: number) {
          calls++;
          if (broken) return { windows: [{ start: 0, end: 4, from: 10, to: 5 }], sessions: [] };
          const at = query.indexOf('hier');
          const day = Math.floor(now / DAY) * DAY - DAY;
          return { windows: at < 0 ? [] : [{ start: at, end: at + 4, from: day, to: day + DAY }], sessions: [] };
        },
      };
      const memory = await demo.open({ name: 'time-parser-worker', timeZone: 'UTC', timeParser });
      // The worker's clock is the wall clock: one turn a day over the last three days.
      const at = Date.now();
      await memory.turns.addMany([
        { id: 'd1', userId: 'u', sessionId: 's1', speaker: 'Léa', text: "J'ai mangé une pizza au restaurant.", createdAt: at - DAY },
        { id: 'd2', userId: 'u', sessionId: 's2', speaker: 'Léa', text: "J'ai mangé un couscous au restaurant.", createdAt: at - 2 * DAY },
        { id: 'd3', userId: 'u', sessionId: 's3', speaker: 'Léa', text: "J'ai mangé des crêpes au restaurant.", createdAt: at - 3 * DAY },
      ]);
      const hits = await memory.recall("Qu'est-ce que j'ai mangé au restaurant hier ?", { userId: 'u', k: 2, touch: false });
      broken = true;
      const error = await memory.recall('mangé hier', { userId: 'u', k: 2, touch: false }).then(
        () => null,
        (e: { name: string; message: string }) => ({ name: e.name, message: e.message }),
      );
      await memory.close();
      return { top: hits[0]?.memory.id, window: hits[0]?.parts.timeWindow?.text, calls, error };
    });
    expect(found.top).toBe('d1');
    expect(found.window).toBe('hier');
    expect(found.calls).toBe(2);
    expect(found.error?.name).toBe('ValidationError');
    expect(found.error?.message).toMatch(/timeParser \(fr\) answered wrongly: windows\.0: from must be before to/);
    await context.close();
  });
});
