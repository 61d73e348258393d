/**
 * A tool call run as an MCP task (2025-11-25): `tools/call` with a `task` field answers with a task, which is watched
 * with `tasks/get` until it ends, and whose result `tasks/result` fetches; aborting sends `tasks/cancel`. Resuming
 * (after a reload) watches a task created earlier, without sending `tools/call` again.
 *
 * Built on the SDK client's task API (`client.request` with `task`, `client.experimental.tasks.getTask`,
 * `getTaskResult`, `cancelTask`) rather than its `callToolStream`/`requestStream` loop: that loop sleeps for the
 * server's own `pollInterval` (unbounded, and deaf to the abort signal, so a hostile interval would keep Cancel and the
 * timeout from reaching the server), and drops a failed task's result. Everything the server sends is untrusted.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ToolResult } from '../core/base/toolResult';
import type { TaskReport } from '../core/engine/invoker';
import { TASK_STATUSES, type TaskStatus } from '../core/plan/plan';
import { CallError, MAX_TIMER_MS, rawResultSchema, type LogLevel } from './transport';

/** How long the server is asked to keep a task and its result (`task.ttl`): long enough to survive a window reload. */
export const TASK_TTL_MS = 60 * 60 * 1000;
/** Bounds on the server's `pollInterval`: never busier than this… */
export const MIN_POLL_MS = 100;
/** …and never sleepier (a hostile interval must not park the watch). */
export const MAX_POLL_MS = 5_000;
/** The longest task id or status message kept (longer ones are refused or clipped). */
const MAX_TASK_ID = 512;
const MAX_MESSAGE = 500;

export interface ToolTaskRun {
  client: Client;
  /** The server's name, for messages. */
  server: string;
  tool: string;
  args: Record<string, unknown>;
  /** Watch this task instead of creating one. */
  resume?: string;
  /** Aborts the watch; the task is then cancelled (`tasks/cancel`). */
  signal: AbortSignal;
  /** Every report: the task as created, then each poll. */
  onTask: (task: TaskReport) => void;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  log: (level: LogLevel, text: string) => void;
}

/**
 * Runs `tool` as a task (or watches `resume`) to its end and returns its result: completed and failed tasks give the
 * result `tasks/result` returns (a failed tool is in-band, `isError`). Rejects with a {@link CallError} when the server
 * cancelled the task, does not know it, or the watch was aborted (then the task is cancelled on the server first).
 */
export async function runToolTask(run: ToolTaskRun): Promise<ToolResult> {
  const { client, signal } = run;
  let taskId = run.resume;
  try {
    if (taskId === undefined) {
      const created = await client.request({ method: 'tools/call', params: { name: run.tool, arguments: run.args } }, rawResultSchema, {
        task: { ttl: TASK_TTL_MS },
        signal,
        timeout: MAX_TIMER_MS,
        onprogress: (p) => run.onProgress?.(p),
      });
      const task = taskOf((created as { task?: unknown }).task);
      // A server that ran the tool at once and answered with its result (it ignores `task`): that is the result.
      if (!task) {
        if ((created as { task?: unknown }).task !== undefined)
          throw new CallError(
            'failed',
            `Server '${run.server}' answered '${run.tool}' with a task that is not one (no valid taskId and status).`,
          );
        return created as ToolResult;
      }
      taskId = task.taskId;
      run.log('info', `call ${run.tool}: runs as task ${task.taskId} (${task.status})`);
      run.onTask(task);
      if (isEnded(task.status)) return await ended(run, task);
      await sleep(pollMs(task.pollInterval), signal);
    } else {
      run.log('info', `call ${run.tool}: watching task ${taskId} again (nothing is sent twice)`);
    }
    for (;;) {
      signal.throwIfAborted();
      const raw = await client.experimental.tasks.getTask(taskId, { signal, timeout: 60_000 });
      const task = taskOf(raw);
      if (!task || task.taskId !== taskId)
        throw new CallError('failed', `Server '${run.server}' answered tasks/get for task ${taskId} with something else.`);
      run.onTask(task);
      if (isEnded(task.status) || task.status === 'input_required') return await ended(run, task);
      await sleep(pollMs(task.pollInterval), signal);
    }
  } catch (err) {
    if (signal.aborted && taskId !== undefined) await cancelTask(run, taskId);
    throw err;
  }
}

/**
 * The task's status now, or undefined when the server does not know it (or cannot be asked): whether a step interrupted
 * by a reload can resume watching it.
 */
export async function taskStatusOf(client: Client, taskId: string): Promise<TaskReport | undefined> {
  try {
    const task = taskOf(await client.experimental.tasks.getTask(taskId, { timeout: 15_000 }));
    return task && task.taskId === taskId ? task : undefined;
  } catch {
    return undefined;
  }
}

/** A task that ended (or waits for input, which `tasks/result` delivers): its result. */
async function ended(run: ToolTaskRun, task: TaskReport & { pollInterval?: number }): Promise<ToolResult> {
  if (task.status === 'cancelled')
    throw new CallError('cancelled', `Server '${run.server}' cancelled task ${task.taskId}${task.message ? `: ${task.message}` : ''}`);
  // input_required: tasks/result delivers the server's question (elicitation) and blocks until the task ends.
  return (await run.client.experimental.tasks.getTaskResult(task.taskId, rawResultSchema, {
    signal: run.signal,
    timeout: MAX_TIMER_MS,
  })) as ToolResult;
}

async function cancelTask(run: ToolTaskRun, taskId: string): Promise<void> {
  try {
    await run.client.experimental.tasks.cancelTask(taskId, { timeout: 10_000 });
    run.log('info', `call ${run.tool}: sent tasks/cancel for task ${taskId}`);
  } catch (err) {
    run.log('warn', `call ${run.tool}: tasks/cancel for task ${taskId} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The task in what a server sent, checked and clipped; undefined when it is not one. */
function taskOf(value: unknown): (TaskReport & { pollInterval?: number }) | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const t = value as { taskId?: unknown; status?: unknown; statusMessage?: unknown; pollInterval?: unknown };
  if (typeof t.taskId !== 'string' || t.taskId === '' || t.taskId.length > MAX_TASK_ID) return undefined;
  if (!(TASK_STATUSES as readonly unknown[]).includes(t.status)) return undefined;
  const message =
    typeof t.statusMessage === 'string' && t.statusMessage.trim() !== ''
      ? t.statusMessage.length > MAX_MESSAGE
        ? `${t.statusMessage.slice(0, MAX_MESSAGE - 1)}…`
        : t.statusMessage
      : undefined;
  return {
    taskId: t.taskId,
    status: t.status as TaskStatus,
    ...(message !== undefined ? { message } : {}),
    ...(typeof t.pollInterval === 'number' ? { pollInterval: t.pollInterval } : {}),
  };
}

function isEnded(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

function pollMs(interval: number | undefined): number {
  return Number.isFinite(interval) ? Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, interval!)) : 1000;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason instanceof Error ? signal.reason : new CallError('cancelled', 'Cancelled'));
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CallError('cancelled', 'Cancelled'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
