// The README's browser quick start: the same code in every example app.
import { createMemory } from 'engram';

async function main() {
  const memory = await createMemory({
    name: 'example-app',
    // The model ships with the app (public/models/): nothing is fetched from another host.
    embedder: { model: 'minishlab/potion-base-4M-int8', localModelPath: '/models/' },
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
