import type { SYNC_OPERATIONS } from '../../operations/sync.js';
import type { HandlersOf } from './handler.js';

/** What each sync operation does: the engine's replica (replication/engine-replica.ts), made on first use. */
export const SYNC_HANDLERS = {
  'sync.enable': ({ replica }) => replica().enable(),
  'sync.pending': ({ replica }, [limit]) => replica().pendingChanges(limit),
  'sync.count': ({ replica }) => replica().pendingCount(),
  'sync.acknowledge': ({ replica }, [seq]) => replica().acknowledge(seq),
  'sync.pullState': ({ replica }) => replica().loadPullState(),
  'sync.apply': ({ replica }, [batch]) => replica().applyRemote(batch),
} satisfies HandlersOf<typeof SYNC_OPERATIONS>;
