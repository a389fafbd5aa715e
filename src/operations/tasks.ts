/** The agent task operations: start, record steps, complete, and find what earlier tasks teach (engine/handlers/tasks.ts runs them). */
import * as z from 'zod/mini';
import { idSchema, userIdSchema } from '../schema/common.js';
import { withDefaultUser } from '../schema/default-user.js';
import { builtSchema, lazySchema } from '../schema/lazy-schema.js';
import { stepInputSchema, taskContextSchema, taskOutcomeSchema, taskQuerySchema, taskStartSchema } from '../schema/task.js';
import { byIdOperation, defineOperation, listOperation, param } from './operation.js';

/** `tasks.list` and a live list of tasks (facade/live-spec.ts) take this. */
export const taskListQuery = withDefaultUser(
  lazySchema(() => z.strictObject({ userId: z.optional(userIdSchema), limit: z._default(z.number().check(z.int(), z.gte(1), z.lte(10_000)), 100) })),
);
const relevantOptions = withDefaultUser(lazySchema(() => z.strictObject({ k: z._default(z.number().check(z.int(), z.gte(1), z.lte(1000)), 5), userId: z.optional(userIdSchema) })));

/** Starts a task; the facade wraps the record in a `Task` handle that buffers its steps (facade/task-handle.ts). */
export const startTask = defineOperation({
  method: 'tasks.start',
  name: 'start a task',
  input: [param(withDefaultUser(taskStartSchema))]
});

/** A `Task` handle's buffered steps, written in one transaction (the handle validates each step as it is logged). */
export const recordSteps = defineOperation({
  method: 'task.flush',
  name: 'record steps',
  input: [param(idSchema, 'id'), param(z.array(stepInputSchema))]
});

export const completeTask = defineOperation({
  method: 'task.complete',
  name: 'complete a task',
  input: [param(idSchema, 'id'), param(taskOutcomeSchema)]
});

export const getTask = byIdOperation('tasks.get', 'get a task');

/** Tasks of a user, newest first (for the inspector). */
export const listTasks = listOperation('tasks.list', 'list tasks', taskListQuery);

export const relevantTasks = defineOperation({
  method: 'tasks.relevant',
  name: 'find relevant tasks',
  input: [param(taskQuerySchema), param(relevantOptions)]
});

/** Without a `userId`, the counts cover every user. */
export const taskStats = defineOperation({
  method: 'tasks.stats',
  name: 'read task stats',
  input: [param(z.strictObject({ userId: z.optional(userIdSchema) }))]
});

export const relevantPatterns = defineOperation({
  method: 'patterns.relevant',
  name: 'find relevant patterns',
  input: [param(lazySchema(() => z.partial(builtSchema(taskContextSchema)))), param(relevantOptions)]
});

export const TASK_OPERATIONS = [startTask, recordSteps, completeTask, getTask, listTasks, relevantTasks, taskStats, relevantPatterns] as const;
