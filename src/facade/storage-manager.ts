/** The browser's Storage API for this origin (`navigator.storage`), absent in Node. */
function storageManager(): StorageManager | undefined {
  return (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage;
}

/** Asks the browser to keep this origin's storage under pressure; whether it is persisted (false without the API). */
export async function persistStorage(): Promise<boolean> {
  const storage = storageManager();
  if (!storage?.persist) return false;
  return (await storage.persisted?.()) || storage.persist();
}

/** Bytes used and available to this origin, or null without the API. */
export async function estimateStorage(): Promise<{ usage: number; quota: number; persisted: boolean } | null> {
  const storage = storageManager();
  if (!storage?.estimate) return null;
  const { usage = 0, quota = 0 } = await storage.estimate();
  return { usage, quota, persisted: (await storage.persisted?.()) ?? false };
}
