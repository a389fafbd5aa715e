import { streamText, wrapLanguageModel, type ModelMessage } from 'ai';
import { createMemory } from 'engram';
import { memoryMiddleware } from 'engram/ai';
import { recordedProvider, SAMPLE_CONVERSATION } from '../../demo/src/sample-conversation.js';
import { recordedChatModel, systemPromptOf } from './recorded-chat-model.js';

/**
 * A chat page on the AI SDK with engram memory through `memoryMiddleware`:
 * before each reply the middleware recalls for the user's message and adds
 * the memories to the system prompt; after the streamed reply it observes the
 * turn, and engram extracts facts from it. Offline: the chat model and the
 * extraction LLM both answer from the demo's recorded replies.
 */
const USER_ID = 'ana';
const SESSION_ID = `session-${Date.now()}`;
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const memory = await createMemory({
  name: 'engram-ai-chat-example',
  embedder: { model: 'minishlab/potion-base-4M-int8', localModelPath: `${location.origin}/models/`, allowRemoteModels: false, wasmPaths: `${location.origin}/ort/` },
  llm: recordedProvider, // extraction; an app would use aiSdkProvider(openai('gpt-4o-mini')) or httpProxy(...)
  capture: { cooldownTurns: 0, cooldownMinutes: 0 },
});

const chatModel = recordedChatModel();
const middleware = memoryMiddleware({
  memory,
  userId: USER_ID,
  sessionId: SESSION_ID,
  k: 6,
  maxContextTokens: 400,
  onObserved: () => void showFacts(),
  onError: (error, stage) => setStatus(`Memory ${stage} failed: ${(error as Error).message}`),
});
const model = wrapLanguageModel({ model: chatModel, middleware });
const messages: ModelMessage[] = [];

async function send(text: string): Promise<string> {
  messages.push({ role: 'user', content: text });
  addMessage('user', text);
  const bubble = addMessage('assistant', '');
  const result = streamText({ model, system: 'You are a friendly assistant. Keep answers short.', messages });
  for await (const delta of result.textStream) bubble.textContent += delta;
  const reply = await result.text;
  messages.push({ role: 'assistant', content: reply });
  $('system').textContent = systemPromptOf(chatModel.doStreamCalls.at(-1)!);
  return reply;
}

function addMessage(role: 'user' | 'assistant', text: string): HTMLElement {
  const div = document.createElement('div');
  div.className = `msg ${role}`;
  div.textContent = text;
  $('log').append(div);
  return div;
}

async function showFacts(): Promise<void> {
  const facts = await memory.facts.list({ userId: USER_ID });
  $('facts').replaceChildren(...facts.map((f) => Object.assign(document.createElement('li'), { textContent: f.text })));
}

function setStatus(text: string): void {
  $('status').textContent = text;
}

$('send').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = $<HTMLInputElement>('message');
  if (!input.value.trim()) return;
  void send(input.value.trim());
  input.value = '';
});
$('sample').addEventListener('click', async () => {
  for (const turn of SAMPLE_CONVERSATION.slice(0, 2)) await send(turn.user);
});

await showFacts();
for (const el of document.querySelectorAll<HTMLInputElement | HTMLButtonElement>('input, button')) el.disabled = false;
setStatus('Ready. Try the sample, then ask "Where do I live, and how should you answer me?"');

/** For the Chromium test (and the curious, in devtools). */
Object.assign(window, {
  example: {
    send,
    settled: () => middleware.flush(),
    systemPrompts: () => chatModel.doStreamCalls.map(systemPromptOf),
    facts: async () => (await memory.facts.list({ userId: USER_ID })).map((f) => ({ text: f.text, sessionId: f.sessionId })),
    sessionId: SESSION_ID,
  },
});
