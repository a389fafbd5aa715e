// Runs on every website: asks the extension's memory what it knows about
// this page. Nothing is opened here (IndexedDB here would be the website's),
// and nothing is written into the page: the lines go back to the extension
// (badge and popup), so the website never sees them.
import { connectMemory } from 'engram/extension';

const memory = connectMemory('notes');

async function lookUp() {
  const query = [document.title, document.querySelector('h1')?.textContent ?? ''].join(' ').trim();
  if (!query) return;
  // touch: false, because visiting a page is not using a memory (recency decays from real use).
  const hits = await memory.recall(query, { k: 3, touch: false });
  // Only what is about the page: a shared keyword, or close in meaning.
  const related = hits.filter((hit) => hit.parts.keyword > 0 || hit.parts.similarity >= 0.4);
  const lines = related.map((hit) => hit.memory.text);
  await chrome.runtime.sendMessage({ type: 'page-memories', lines });
}

lookUp().catch((error) => console.warn(`engram notes: ${error.name}: ${error.message}`));
