/** The abort reason as text (an Error's message), for the AbortError's message. */
export function reasonOf(signal: AbortSignal): string | undefined {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : reason === undefined ? undefined : String(reason);
}
