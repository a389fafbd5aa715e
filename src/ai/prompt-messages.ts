import type { LanguageModelMiddleware } from 'ai';

/** The call options a language-model middleware sees (LanguageModelV3CallOptions), named through `ai` alone. */
export type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
export type Prompt = CallOptions['prompt'];

/** The text of the last user message of a prompt (its text parts joined), or '' when there is none. */
export function lastUserText(prompt: Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i]!;
    if (message.role !== 'user') continue;
    return message.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('\n')
      .trim();
  }
  return '';
}

/**
 * The prompt with `text` added to its system instructions: appended to the
 * first system message when there is one (the app's instructions stay
 * first), otherwise as a new system message at the start.
 */
export function withSystemText(prompt: Prompt, text: string): Prompt {
  const index = prompt.findIndex((message) => message.role === 'system');
  if (index === -1) return [{ role: 'system', content: text }, ...prompt];
  return prompt.map((message, i) => (i === index && message.role === 'system' ? { ...message, content: `${message.content}\n\n${text}` } : message));
}
