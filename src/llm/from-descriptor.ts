import type { ProviderDescriptor } from './descriptor.js';
import { httpProxy } from './http-proxy.js';
import { openAICompatible } from './openai-compatible.js';
import type { LLMProvider } from './types.js';

/** Rebuilds a built-in provider from its description (in the worker). */
export function providerFromDescriptor(descriptor: ProviderDescriptor): LLMProvider {
  switch (descriptor.kind) {
    case 'openai-compatible':
      return openAICompatible(descriptor.options);
    case 'http-proxy':
      return httpProxy(descriptor.options);
  }
}
