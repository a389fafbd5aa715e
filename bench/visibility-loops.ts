/** What the writer loop calls: the public API (in Chromium the page's `Memory`, through its worker). */
export interface VisibilityMemory {
  facts: { add(input: { userId: string; text: string }): Promise<unknown> };
  turns: { add(input: { userId: string; sessionId: string; speaker: string; text: string }): Promise<unknown> };
  episodes: { add(input: { userId: string; text: string }): Promise<unknown> };
}

/**
 * One engine writing without pauses until `stop.stopped`: a fact, a turn and
 * an episode in turn, each about something different. Returns how many it
 * wrote. Self-contained (no imports, no outer names): bench/browser/visibility.ts
 * sends its source text into each tab.
 */
export async function writerLoop(memory: VisibilityMemory, engine: number, stop: { stopped: boolean }): Promise<number> {
  const topics = ['gardening', 'invoices', 'kubernetes', 'climbing', 'sourdough', 'tax returns', 'guitar', 'the move to Porto', 'chess openings', 'bird watching', 'watercolours'];
  const places = ['Lisbon', 'Osaka', 'Quito', 'Tallinn', 'Accra', 'Hobart', 'Bergen', 'Cusco', 'Da Nang'];
  let i = 0;
  while (!stop.stopped) {
    const topic = topics[(i * 7 + engine) % topics.length]!;
    const place = places[(i * 5 + engine * 3) % places.length]!;
    const text = `Engine ${engine} note ${i}: spent ${i % 13} hours on ${topic} near ${place}, round ${i * 31 + engine}`;
    if (i % 3 === 0) await memory.facts.add({ userId: `writer-${engine}`, text });
    else if (i % 3 === 1) await memory.turns.add({ userId: `writer-${engine}`, sessionId: `s${engine}-${Math.floor(i / 30)}`, speaker: i % 2 ? 'user' : 'assistant', text });
    else await memory.episodes.add({ userId: `writer-${engine}`, text });
    i++;
  }
  return i;
}
