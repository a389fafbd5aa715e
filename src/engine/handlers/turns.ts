import type { TURN_OPERATIONS } from '../../operations/turns.js';
import type { HandlersOf } from './handler.js';

/** What each turn operation does (operations/turns.ts declares them). */
export const TURN_HANDLERS = {
  'turns.add': async ({ turns }, [input]) => (await turns.add([input], 'turns.add'))[0]!,
  'turns.addMany': ({ turns }, [inputs]) => turns.add(inputs, 'turns.addMany'),
  'turns.get': ({ turns }, [id]) => turns.get(id),
  'turns.list': ({ turns }, [query]) => turns.list(query),
  'turns.delete': ({ turns }, [id]) => turns.delete(id),
} satisfies HandlersOf<typeof TURN_OPERATIONS>;
