import type { LLMProvider } from 'engram';

/**
 * A short conversation written for the demo, with RECORDED LLM replies: each
 * turn carries the stage-1 extraction and (when the exchange is episode
 * worthy) the stage-2 episode that an LLM returned for it. Playing it through
 * `observe()` shows memories forming with no LLM and no network.
 */
interface RecordedTurn {
  user: string;
  assistant: string;
  extract: { facts: { text: string; category: string; importance: number }[]; hasEpisode: boolean };
  episode?: Record<string, unknown>;
  profile?: Record<string, unknown>;
  /** The earlier fact this turn's fact replaces (the recorded answer of the `same-fact` check). */
  supersedes?: string;
}

export const SAMPLE_CONVERSATION: RecordedTurn[] = [
  {
    user: "Hi! I'm Ana. I just moved to Porto and I'm a data engineer at a small fintech.",
    assistant: 'Welcome to Porto, Ana! How can I help you today?',
    extract: {
      facts: [
        { text: 'The user is called Ana.', category: 'profile', importance: 0.9 },
        { text: 'The user lives in Porto.', category: 'profile', importance: 0.8 },
        { text: 'The user works as a data engineer at a small fintech.', category: 'profile', importance: 0.7 },
      ],
      hasEpisode: false,
    },
    profile: { name: 'Ana', city: 'Porto', timeZone: 'Europe/Lisbon' },
  },
  {
    user: 'Please keep answers short, with code examples when it helps. What is the difference between Parquet and CSV?',
    assistant: 'Parquet is columnar, compressed and typed; CSV is row-based plain text. For analytics, Parquet scans far less data.',
    extract: { facts: [{ text: 'The user prefers short answers with code examples.', category: 'preference', importance: 0.8 }], hasEpisode: false },
    profile: { preferredTone: 'short, with code examples' },
  },
  {
    user: 'We benchmarked Postgres against DuckDB on our 50 GB event log. DuckDB ran the five slowest dashboard queries 20x faster, so we are moving analytics to DuckDB and keeping Postgres for transactions.',
    assistant: 'That split makes sense: DuckDB for columnar analytics, Postgres for OLTP. Keep the benchmark queries as a regression suite.',
    extract: { facts: [], hasEpisode: true },
    episode: {
      goal: 'Choose the analytics database for the event log',
      context: 'A 50 GB event log; dashboards were slow on Postgres',
      approach: 'Benchmarked the five slowest dashboard queries on Postgres and DuckDB',
      outcome: 'Moved analytics to DuckDB (20x faster) and kept Postgres for transactions',
      quality: 'success',
      lessons: 'Benchmark the real slow queries before choosing an analytics engine',
      tags: ['databases', 'analytics'],
      actors: ['user', 'assistant'],
    },
  },
  {
    user: 'Thanks! Can you remind me how to read a Parquet file in DuckDB?',
    assistant: "SELECT * FROM read_parquet('events.parquet');",
    extract: { facts: [], hasEpisode: false },
  },
  {
    // A follow-up to the DuckDB decision. Its episode is auto-chained to the first one: cosine 0.86
    // with the offline model, above the 0.85 chain threshold, under the demo's 0.90 novelty-merge
    // line (capture.noveltyMin 0.1 in main.ts) and the 0.92 dedup threshold. The inspector draws the arc.
    user: 'Follow-up on the DuckDB move: dashboards over long date ranges were still slow, so we rewrote the event log as Parquet partitioned by day. They now load in under a second.',
    assistant: 'Partitioning by day lets DuckDB skip every file outside the date range. Keep each partition between 100 MB and 1 GB.',
    extract: { facts: [], hasEpisode: true },
    episode: {
      goal: 'Choose the Parquet partitioning for the analytics event log',
      context: 'A 50 GB event log in DuckDB; dashboards were slow for long date ranges',
      approach: 'Rewrote the event log as Parquet files partitioned by day, so DuckDB skips the files outside a date range',
      outcome: 'Long-range dashboards load in under a second',
      quality: 'success',
      lessons: 'Partition columnar files by the column the dashboards filter on',
      tags: ['databases', 'analytics'],
      actors: ['user', 'assistant'],
    },
  },
  {
    user: 'I am training for the Porto marathon in November. My goal is to finish under four hours.',
    assistant: 'Great goal! A 16-week plan with one long run a week is a good base.',
    extract: { facts: [{ text: 'The user is training to run the Porto marathon in under four hours.', category: 'goal', importance: 0.8 }], hasEpisode: false },
    profile: { goals: ['run the Porto marathon in under four hours'] },
  },
  {
    // A changed goal: the new statement is recorded as the same fact as the marathon goal, so the
    // old version is retired with `supersededBy` and the Facts tab shows both in its history.
    user: 'Small change of plan: I now want to finish the Porto marathon in under 3 hours 45 minutes.',
    assistant: 'Ambitious! Add one tempo run a week to the plan.',
    extract: { facts: [{ text: 'The user is training to run the Porto marathon in under 3 hours 45 minutes.', category: 'goal', importance: 0.8 }], hasEpisode: false },
    supersedes: 'The user is training to run the Porto marathon in under four hours.',
    profile: { goals: ['run the Porto marathon in under 3 hours 45 minutes'] },
  },
];

/** An LLM provider that answers from the recordings, matching each request to its turn by the user text it carries. */
export const recordedProvider: LLMProvider = async (request) => {
  const turn = SAMPLE_CONVERSATION.find((t) => request.input.includes(t.user.slice(0, 60)));
  switch (request.task) {
    case 'extract':
      return { output: turn?.extract ?? { facts: [], hasEpisode: false } };
    case 'episode':
      if (!turn?.episode) throw new Error('no recorded episode for this exchange');
      return { output: turn.episode };
    case 'profile': {
      const owner = SAMPLE_CONVERSATION.find((t) => t.extract.facts.some((f) => request.input.includes(f.text)));
      return { output: { updates: owner?.profile ?? {} } };
    }
    case 'same-fact': {
      // The input is "EXISTING: <old text>\nNEW: <new text>".
      const same = SAMPLE_CONVERSATION.some((t) => t.supersedes && request.input.includes(`EXISTING: ${t.supersedes}`) && t.extract.facts.some((f) => request.input.includes(`NEW: ${f.text}`)));
      return { output: { same } };
    }
    case 'compose':
      // The recorded merge keeps the newer statement.
      return { output: { text: /NEW: (.*)$/m.exec(request.input)?.[1] ?? '' } };
    default:
      throw new Error(`no recording for task "${request.task}"`);
  }
};
