import type { LLMProvider } from './types.js';
import type { OpenAICompatibleOptions } from './openai-compatible.js';
import type { HttpProxyOptions } from './http-proxy.js';

/**
 * Built-in providers carry a plain-data description of themselves, so the
 * page can hand them to the worker (functions cannot be cloned) and the
 * worker rebuilds them there: their HTTP calls then run off the main thread.
 */
export const PROVIDER_DESCRIPTOR = Symbol.for('engram.provider');

export type ProviderDescriptor =
  | { kind: 'openai-compatible'; options: OpenAICompatibleOptions }
  | { kind: 'http-proxy'; options: HttpProxyOptions };

export function withDescriptor<P extends LLMProvider>(provider: P, descriptor: ProviderDescriptor): P {
  Object.defineProperty(provider, PROVIDER_DESCRIPTOR, { value: descriptor, enumerable: false });
  return provider;
}

export function describeProvider(provider: LLMProvider): ProviderDescriptor | undefined {
  return (provider as LLMProvider & { [PROVIDER_DESCRIPTOR]?: ProviderDescriptor })[PROVIDER_DESCRIPTOR];
}
