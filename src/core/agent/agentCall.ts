/**
 * What an agent call through a gated server does, as pure code: the policy behind the gate channel (the socket and
 * its authentication live in src/mcp/gateChannel.ts and know nothing of this). A plain result goes straight back; a
 * plan is recorded, shown where the user reviews it, and the agent's call waits until the plan is decided and run (or
 * withdrawn: the agent cancelled, or nobody decided in time); the agent then receives a summary. Every call goes
 * through the gate's one use case for calls ({@link Gate.call}) with the agent's decision.
 *
 * No node built-ins, no vscode: the servers are seen through {@link AgentServers}, which the registry satisfies.
 */
import { visibleToModel, withoutAppUi, type AppToolLike } from '../apps/appTool';
import { agentErrorResult, agentSummaryResult, summarizePlan, withNote, type AgentEnding } from './agentSummary';
import { GateRefusal } from '../engine/door';
import type { CallOutcome, Gate } from '../engine/gate';
import { CancellationTokenSource, type CancellationToken, type Event } from '../base/lifecycle';
import { rootPlanId } from '../workflow/planTree';
import { describeOutcome, planTitle } from '../present/workflowWords';
import type { ToolResult } from '../base/toolResult';
import { getPlan } from '../workflow/workflow';

/** What a forwarded call may use while it runs. */
export interface GateCallContext {
  /** Cancelled when the agent cancels its call or the gated server goes away. */
  readonly token: CancellationToken;
  /** Tells the agent (VS Code's progress) what the call waits for; dropped unless the agent asked for progress. */
  progress(message: string): void;
}

/** What the gated server learns of its server when it connects (the hello's answer). */
export interface GateHello {
  serverInfo?: { name: string; version: string; title?: string };
  instructions?: string;
}

/** Answers what the gated servers forward. `server` is the Plangate server the gated server fronts. */
export interface GateChannelHandler {
  hello?(server: string): GateHello;
  listTools(server: string, token: CancellationToken): Promise<readonly unknown[]>;
  callTool(server: string, tool: string, args: Record<string, unknown>, context: GateCallContext): Promise<ToolResult>;
}

/** One server as the handler sees it (a ServerConnection is one). */
export interface AgentServer {
  readonly state: string;
  readonly message?: string;
  /** Its tools as listed (handed to the agent unchanged). */
  readonly tools: readonly unknown[];
  readonly serverInfo?: { name: string; version: string; title?: string };
  readonly instructions?: string;
  readonly onDidChangeState: Event<{ state: string }>;
}

/** The servers Plangate runs, by name (the ServerRegistry is one). */
export interface AgentServers {
  get(name: string): AgentServer | undefined;
}

export interface GateHandlerOptions {
  /** The servers the gated servers front (the extension's ServerRegistry). */
  registry: AgentServers;
  gate: Gate;
  /**
   * Shows a result that is not plain (a plan, an invalid plan, a collect-mode form) where the user reviews it:
   * the extension opens the panel without taking focus. Plain results are not shown.
   */
  show?: (outcome: CallOutcome) => void;
  /**
   * Told of a plain result as it goes back to the agent (unchanged): the extension shows a server app's page with it
   * when the tool carries one, without taking focus.
   */
  showPlain?: (outcome: CallOutcome) => void;
  /** Per-call timeout of the planning call (default 120 s). */
  callTimeoutMs?: () => number;
  /** How long a plan may sit with nothing happening before the agent's call gives up and withdraws it (default 30 min). */
  idleTimeoutMs?: number;
  /** How long `tools/list` waits for a server that is starting (default 30 s). */
  startWaitMs?: number;
  /** Files the plan's run changed, when known (hook for the touched-files engine). */
  changedFiles?: (planId: string) => Promise<readonly string[] | undefined> | readonly string[] | undefined;
  log?: (level: 'info' | 'warn', text: string) => void;
  now?: () => number;
}

/** Answers gated servers with the registry's connections and the gate (see the file comment). */
export function createGateHandler(options: GateHandlerOptions): GateChannelHandler {
  const { registry, gate } = options;
  const log = options.log ?? (() => undefined);
  const idleMs = options.idleTimeoutMs ?? 30 * 60_000;

  const settled = (planId: string) => gate.isSettled(planId);

  /** Waits for the user's decision and the run; withdraws the plan when the agent cancels or nothing happens for too long. */
  async function awaitPlan(planId: string, context: GateCallContext): Promise<ToolResult> {
    const title = planTitle(getPlan(gate.workflow.state, planId)!);
    context.progress(`Waiting for your approval in the Plangate panel: ${title}`);
    const wait = new CancellationTokenSource(context.token);
    const idle = { expired: false };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        idle.expired = true;
        wait.cancel();
      }, idleMs);
    };
    arm();
    const sub = gate.workflow.onDidChange(({ state, event }) => {
      if (!('planId' in event) || rootPlanId(state, event.planId) !== planId) return;
      arm();
      const plan = getPlan(state, planId);
      if (plan && plan.phase !== 'awaiting_approval') context.progress(`Plangate: ${title} — ${describeOutcome(plan)}`);
    });
    try {
      await gate.whenSettled(planId, wait.token);
    } finally {
      sub.dispose();
      clearTimeout(timer);
      wait.dispose();
    }
    let reason: string | undefined;
    let ending: AgentEnding = 'settled';
    if (!settled(planId)) {
      ending = idle.expired && !context.token.isCancellationRequested ? 'timed_out' : 'cancelled';
      reason =
        ending === 'cancelled'
          ? 'The agent cancelled its call (the chat request was stopped)'
          : `Nobody decided within ${Math.round(idleMs / 60_000)} minutes, so the agent's call gave up`;
      const plan = getPlan(gate.workflow.state, planId);
      log('info', `agent call: plan '${planId}' withdrawn: ${reason}`);
      if (plan?.phase === 'awaiting_approval') gate.reject(planId, reason);
      else gate.cancel(planId);
      const done = new CancellationTokenSource();
      const guard = setTimeout(() => done.cancel(), 10_000);
      await gate.whenSettled(planId, done.token);
      clearTimeout(guard);
      done.dispose();
    }
    const changedFiles = await Promise.resolve(options.changedFiles?.(planId)).catch(() => undefined);
    const summary = summarizePlan(gate.workflow.state, planId, { ending, reason, changedFiles });
    return summary ? agentSummaryResult(summary) : agentErrorResult('Plangate: the plan disappeared before it was decided.');
  }

  return {
    hello(server) {
      const conn = registry.get(server);
      const info = conn?.serverInfo;
      return {
        ...(info ? { serverInfo: { name: info.name, version: info.version, ...(info.title ? { title: info.title } : {}) } } : {}),
        ...(conn?.instructions ? { instructions: conn.instructions } : {}),
      };
    },

    async listTools(server, token) {
      const conn = registry.get(server);
      if (!conn) {
        log('warn', `gated server '${server}' asked for tools, but Plangate has no such server (any more)`);
        return [];
      }
      await whenStarted(conn, options.startWaitMs ?? 30_000, token);
      if (conn.state !== 'running')
        log('warn', `gated server '${server}' asked for tools while the server is ${conn.state}; it offers none until it runs`);
      // Tools meant only for a server's own app (MCP Apps visibility ["app"]) are not the agent's to call; the others
      // are offered without their app, which Plangate's panel shows (see withoutAppUi).
      return conn.state === 'running'
        ? conn.tools.filter((t) => visibleToModel(t as AppToolLike)).map((t) => withoutAppUi(t as AppToolLike))
        : [];
    },

    async callTool(server, tool, args, context) {
      const conn = registry.get(server);
      if (!conn)
        return agentErrorResult(
          `Plangate has no server named '${server}' (any more). Check .vscode/mcp.json or the plangate.servers setting.`,
        );
      await whenStarted(conn, options.startWaitMs ?? 30_000, context.token);
      if (conn.state !== 'running') {
        return agentErrorResult(
          `Plangate's server '${server}' is ${conn.state}${conn.message ? ` (${conn.message})` : ''}. Start it in the Plangate Servers view, then call again.`,
        );
      }
      if (!visibleToModel(conn.tools.find((t) => (t as AppToolLike).name === tool) as AppToolLike | undefined))
        return agentErrorResult(`Tool '${tool}' of server '${server}' is for the server's own app only; the agent may not call it.`);
      const controller = new AbortController();
      const sub = context.token.onCancellationRequested(() => controller.abort('Cancelled by the agent'));
      let outcome: CallOutcome;
      try {
        outcome = await gate.call({
          server,
          tool,
          args,
          entrance: 'agent',
          decision: { by: 'agent', what: 'the chat agent called it through the gated server; VS Code confirmed it under its own rules' },
          signal: controller.signal,
          timeoutMs: options.callTimeoutMs?.() ?? 120_000,
          onProgress: (p) => context.progress(p.message ?? (p.total ? `${tool}: ${p.progress}/${p.total}` : `${tool}: ${p.progress}`)),
        });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (err instanceof GateRefusal && (err.kind === 'denied' || err.kind === 'declined')) {
          // The policy's or the user's no: the agent gets the reason as the tool's error text, and nothing was sent.
          log('info', `agent call ${server}/${tool} not sent: ${message}`);
          return agentErrorResult(`Plangate: ${message}`);
        }
        log('warn', `agent call ${server}/${tool} failed: ${message}`);
        return agentErrorResult(`Plangate: calling '${tool}' on server '${server}' failed: ${message}`);
      } finally {
        sub.dispose();
      }
      const { result, received } = outcome;
      if (received.kind !== 'plain') options.show?.(outcome);
      else {
        try {
          options.showPlain?.(outcome);
        } catch (err) {
          log('warn', `agent call ${server}/${tool}: its app could not be shown: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      switch (received.kind) {
        case 'plain':
          return result;
        case 'invalid_plan':
          return withNote(
            result,
            `Plangate: this result carries a plan that is not valid, so nothing was gated or run ` +
              `(${received.problems
                .map((p) => `${p.path || 'plan'}: ${p.message}`)
                .slice(0, 5)
                .join('; ')}). The Plangate panel shows it.`,
          );
        case 'unrecorded':
          return withNote(
            result,
            `Plangate: this result carries a plan that could not be recorded (${received.reason}), so nothing was gated or run.`,
          );
        case 'collect_form':
        case 'collect_error':
          return withNote(
            result,
            'Plangate: this result is a collect-mode form. Plangate does not take collect forms from the agent yet, ' +
              'so it is passed on as it is.',
          );
        case 'plan': {
          const plan = getPlan(gate.workflow.state, received.planId);
          if (plan && plan.outcome === 'not_ok') {
            return withNote(
              result,
              `Plangate: the plan's status is ${String(plan.plan.status)}, so there is nothing to approve or run; ` +
                'the Plangate panel shows its errors and questions.',
            );
          }
          log('info', `agent call ${server}/${tool}: plan '${received.planId}' waits for the user's decision`);
          return awaitPlan(received.planId, context);
        }
      }
    },
  };
}

/** Resolves once the connection is no longer starting, or after `ms`, or on cancellation. */
function whenStarted(conn: AgentServer, ms: number, token: CancellationToken): Promise<void> {
  if (conn.state !== 'starting') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      sub.dispose();
      cancelSub.dispose();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const sub = conn.onDidChangeState((s) => {
      if (s.state !== 'starting') done();
    });
    const cancelSub = token.onCancellationRequested(done);
  });
}
