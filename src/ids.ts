/** Random, collision-free ids (crypto.randomUUID exists in browsers, workers and Node ≥ 19). */
export function newId(): string {
  return crypto.randomUUID();
}
