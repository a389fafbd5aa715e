import type { App } from '../app.js';
import { h, mount } from '../dom.js';
import { chatReply } from '../llm.js';

const SYSTEM = 'You are a helpful assistant with long-term memory. Use the memory lines when they help; never invent memories. Answer briefly.';

/** The chat box: each turn recalls memories, replies through the proxy, then goes through `observe()`. */
export function chatPanel(root: HTMLElement, app: App): { say(role: 'user' | 'assistant', text: string, note?: string): void } {
  const messages = h('div', { class: 'messages', id: 'messages', 'aria-live': 'polite' });
  const input = h('textarea', { id: 'chat-input', rows: 2, placeholder: app.llmAvailable ? 'Say something…' : 'Chat needs an LLM (see the notice above)', disabled: !app.llmAvailable });
  const send = h('button', { id: 'chat-send', disabled: !app.llmAvailable, onclick: () => void turn() }, 'Send');
  const context = h('pre', { id: 'chat-context', class: 'muted' });
  const say = (role: 'user' | 'assistant', text: string, note?: string) => {
    messages.append(h('div', { class: `msg ${role}` }, text, note ? h('span', { class: 'recorded' }, ` ${note}`) : null));
    messages.scrollTop = messages.scrollHeight;
  };

  async function turn() {
    const text = input.value.trim();
    if (!text) return;
    input.value = '';
    say('user', text);
    send.disabled = true;
    try {
      const userId = app.userId();
      const hits = await app.memory.recall(text, { userId, k: 6 });
      const memoryLines = app.memory.formatContext(hits, { profileLine: await app.memory.profileLine(userId) });
      context.textContent = `Memory used for this reply:\n${memoryLines}`;
      const reply = await chatReply(SYSTEM, `${memoryLines}\n\nUser: ${text}`);
      say('assistant', reply);
      const result = await app.memory.observe({ userId, sessionId: 'demo-chat', user: text, assistant: reply });
      const summary = `observe: ${result.facts.stored} new, ${result.facts.replaced} merged facts; episode ${result.episodeScheduled ? 'scheduled' : `not scheduled (${result.reason ?? 'no'})`}`;
      // Under the reply, so each turn keeps what it did to memory (the status line moves on).
      messages.append(h('div', { class: 'memory-note' }, summary));
      messages.scrollTop = messages.scrollHeight;
      app.setStatus(summary);
      app.refresh();
    } catch (error) {
      say('assistant', `⚠ ${(error as Error).message}`);
    } finally {
      send.disabled = false;
    }
  }

  mount(
    root,
    h('h2', {}, 'Chat'),
    app.llmAvailable
      ? null
      : h('p', { class: 'notice', id: 'no-llm' }, 'No LLM is configured, so chat is off. Everything else works: add memories by hand, recall, run the sample agent task, or load the sample conversation (recorded LLM replies). To chat, start the demo with ENGRAM_LLM_BASE_URL, ENGRAM_LLM_API_KEY and ENGRAM_LLM_MODEL set.'),
    messages,
    input,
    h('div', { class: 'flex' }, send),
    context,
  );
  return { say };
}
