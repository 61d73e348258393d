/**
 * What the runner needs from the MCP layer: the tool catalog of the connected servers, in configuration
 * order, and a way to call a tool. The extension's server registry and the CLI's single connection both
 * implement it; core never sees the SDK.
 */
import type { StepProgress, TaskStatus } from '../workflow/workflow';
import type { ToolResult } from '../base/toolResult';

export interface ServerTools {
  /** The server's name as configured (the key in `mcp.json` `servers`). */
  server: string;
  /** Names of the tools it offers (from `tools/list`). */
  tools: readonly string[];
  /** Each tool's definition hash (`toolDefinitionHash`), by name; absent when the invoker cannot tell (test stand-ins). */
  hashes?: ReadonlyMap<string, string>;
  /**
   * Each tool's definition as listed (the one `hashes` was taken of), by name: what the panel shows of a step's tool and
   * compares when it changes during review. Absent when the invoker cannot tell.
   */
  definitions?: ReadonlyMap<string, { name: string } & Record<string, unknown>>;
}

export interface ToolCallOptions {
  /** Aborting sends `notifications/cancelled` to the server and rejects the call. */
  signal?: AbortSignal;
  /** Per-call timeout in milliseconds; progress notifications reset it, and it stands still while the server waits for the user. */
  timeoutMs?: number;
  onProgress?: (progress: StepProgress) => void;
  /**
   * The server is waiting for the user (`true`: it asked for input through elicitation, and a form is open) or goes
   * on working (`false`). A caller's own timeout should stand still meanwhile and start afresh afterwards.
   */
  onWaitingForUser?: (waiting: boolean) => void;
  /** How the call runs as an MCP task (see {@link TaskCallOptions}). */
  task?: TaskCallOptions;
}

/** A task's state as the server reported it (`tools/call` answered with a task, then each `tasks/get`). */
export interface TaskReport {
  taskId: string;
  status: TaskStatus;
  /** The server's status message (untrusted). */
  message?: string;
}

/**
 * MCP tasks (2025-11-25). A tool whose definition says `execution.taskSupport: "required"` is always called as a task;
 * one that says `"optional"` only when `prefer` is set (a plan step: it gains a resumable call and a real cancel).
 * Aborting the call's signal sends `tasks/cancel`.
 */
export interface TaskCallOptions {
  /** Call an `optional` tool as a task too (the server must declare `tasks.requests.tools.call`). */
  prefer?: boolean;
  /** Do not send `tools/call`: watch this task, created by an earlier call (resumed after a reload), to its end. */
  resume?: string;
  /** Told of the task when the server creates it, and at each status poll (every report, changed or not). */
  onTask?: (task: TaskReport) => void;
}

export interface ToolInvoker {
  /** Connected servers in configuration order, with their tools. */
  catalog(): Promise<readonly ServerTools[]>;
  /**
   * Calls `tool` on `server`. Tool failures come back in-band (`isError: true`); a rejected promise means the
   * call itself failed (timeout, cancelled, connection lost) and its message says which.
   */
  callTool(server: string, tool: string, args: Record<string, unknown>, options?: ToolCallOptions): Promise<ToolResult>;
  /**
   * The status of task `taskId` on `server` (`tasks/get`), or undefined when the server does not know it (any more) or
   * cannot be asked. Absent: the invoker cannot watch tasks, so none is resumed.
   */
  taskStatus?(server: string, taskId: string): Promise<TaskReport | undefined>;
}
