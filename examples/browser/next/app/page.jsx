'use client';
// The README's browser quick start in a Next.js client component: engram
// lives in the browser (IndexedDB, a Web Worker), so it starts in an effect,
// never during server rendering.
import { useEffect, useState } from 'react';
import { createMemory } from 'engram';

async function main() {
  const memory = await createMemory({
    name: 'example-app',
    // No embedder named: engram's bundled model, emitted into the app with it: nothing is fetched from another host.
  });
  await memory.facts.add({ text: 'The user keeps bees on the roof of their flat' });
  await memory.facts.add({ text: 'The user plays the cello in an amateur orchestra' });
  await memory.facts.add({ text: 'The user is allergic to penicillin' });
  const hits = await memory.recall('which musical instrument?');
  return hits[0].memory.text;
}

export default function Page() {
  const [status, setStatus] = useState('Starting…');
  useEffect(() => {
    main().then(
      (top) => {
        setStatus(top);
        window.exampleResult = { top };
      },
      (error) => {
        setStatus(`${error.name}: ${error.message}`);
        window.exampleResult = { error: `${error.name}: ${error.message}` };
      },
    );
  }, []);
  return <p id="status">{status}</p>;
}
