import type { DBCore, Middleware } from 'dexie';

/**
 * Middlewares that travel with an IndexedDB factory: every `EngramDatabase`
 * opened on that factory installs them. This is how the durable Node store
 * (store/durable/) journals every committed transaction without the engine
 * knowing: the engine opens the same database class on a factory, and the
 * factory decides where the data lives.
 */
const byFactory = new WeakMap<object, Middleware<DBCore>[]>();

export function attachMiddleware(factory: IDBFactory, middleware: Middleware<DBCore>): void {
  byFactory.set(factory, [...(byFactory.get(factory) ?? []), middleware]);
}

export function middlewaresOf(factory: IDBFactory | undefined): readonly Middleware<DBCore>[] {
  return (factory && byFactory.get(factory)) ?? [];
}
