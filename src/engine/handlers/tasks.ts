import type { TASK_OPERATIONS } from '../../operations/tasks.js';
import type { HandlersOf } from './handler.js';

/** What each task operation does (operations/tasks.ts declares them). */
export const TASK_HANDLERS = {
  'tasks.start': ({ tasks }, [input]) => tasks.start(input),
  'task.flush': ({ tasks }, [taskId, steps]) => tasks.appendSteps(taskId, steps),
  'task.complete': ({ tasks }, [taskId, outcome]) => tasks.complete(taskId, outcome),
  'tasks.get': ({ tasks }, [taskId]) => tasks.get(taskId),
  'tasks.list': ({ tasks }, [query]) => tasks.list(query.userId, query.limit),
  'tasks.relevant': ({ tasks }, [query, options]) => tasks.relevant(query, options),
  'tasks.stats': ({ tasks }, [options]) => tasks.stats(options.userId),
  'patterns.relevant': ({ tasks }, [context, options]) => tasks.relevantPatterns(context, options),
} satisfies HandlersOf<typeof TASK_OPERATIONS>;
