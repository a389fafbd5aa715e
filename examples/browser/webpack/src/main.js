// The README's browser quick start: the same code in every example app.
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

const status = document.querySelector('#status');
main().then(
  (top) => {
    status.textContent = top;
    window.exampleResult = { top };
  },
  (error) => {
    status.textContent = `${error.name}: ${error.message}`;
    window.exampleResult = { error: `${error.name}: ${error.message}` };
  },
);
