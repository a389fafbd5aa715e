/**
 * An integer as US English writes it, with thousands separators
 * ("100,000"), for error messages. Not `toLocaleString('en-US')`: its first
 * call loads the platform's number-formatting data, and a schema whose
 * message is built at module evaluation would make every page that imports
 * engram pay that on its start-up task.
 */
export function withThousands(value: number): string {
  if (!Number.isSafeInteger(value)) return String(value);
  const digits = String(Math.abs(value)).replace(/\B(?=(\d{3})+$)/g, ',');
  return value < 0 ? `-${digits}` : digits;
}
