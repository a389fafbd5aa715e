// The popup: adds facts and lists them through the memory the service
// worker serves (connectMemory), and shows what the content script found
// about the current tab's page.
import { connectMemory } from 'engram/extension';

const memory = connectMemory('notes');
const $ = (id) => document.getElementById(id);

function fill(list, lines) {
  list.replaceChildren(...lines.map((line) => Object.assign(document.createElement('li'), { textContent: line })));
}

async function refresh() {
  fill($('latest'), (await memory.facts.list({ limit: 5 })).map((fact) => fact.text));
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  const found = tab ? await chrome.runtime.sendMessage({ type: 'page-memories?', tabId: tab.id }) : { lines: [] };
  fill($('page'), found.lines.length ? found.lines : ['Nothing yet.']);
}

$('add').addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = $('text').value.trim();
  try {
    await memory.facts.add({ text });
    $('text').value = '';
    await refresh();
    $('status').textContent = 'Remembered.';
  } catch (error) {
    // A ValidationError (an empty note, say) arrives typed, with what was wrong.
    $('status').textContent = error.message;
  }
});

refresh().catch((error) => ($('status').textContent = `${error.name}: ${error.message}`));
