/**
 * `plangate run`: connects to one MCP server (stdio or streamable HTTP), calls the planning tool, classifies the
 * result, and for an ok plan asks "Proceed?" (or takes `--yes`), then runs the steps through the engine's runner over
 * a Workflow (ledger in memory, or a JSONL file with `--ledger`). Exit 0: completed, or a plain result; 1: a step
 * failed, the plan was rejected, its status is not ok, or a tool is missing; 2: usage, connection or server error
 * before any step ran (also: no terminal to approve on and no `--yes`).
 */
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { formatProblem } from '../core/plan/envelope';
import { MemoryLedgerSink, Workflow, type WorkflowChange } from '../core/workflow/ledger';
import { CancellationTokenSource } from '../core/base/lifecycle';
import type { OrchestratedPlan } from '../core/plan/plan';
import { resolveSteps } from '../core/engine/resolve';
import type { CallAskAnswer } from '../core/engine/door';
import { Gate, type CallOutcome } from '../core/engine/gate';
import { verdictWords, stepPolicyMark } from '../core/present/callCard';
import { evaluate } from '../core/policy/evaluate';
import type { PolicyRules } from '../core/policy/rules';
import { resultText, type ToolResult } from '../core/base/toolResult';
import {
  activePlans,
  getPlan,
  isTerminalTask,
  planApprovalHash,
  type PlanRecord,
  type SamplingRecord,
  type StepRecord,
  type WorkflowState,
} from '../core/workflow/workflow';
import { sameJson } from '../core/base/json';
import { isSecretKey, type ResolvedServer, type ResolvedStdioServer } from '../mcp/config';
import { ServerConnection } from '../mcp/connection';
import type { SandboxRules } from '../mcp/sandbox';
import { openFileLedger } from '../node/fileLedger';
import { nodeRealPath } from '../node/realPath';
import { CliRunnerHost, TerminalGateHost } from './cliRunnerHost';
import { ConnectionInvoker } from './connectionInvoker';
import { elicitHandler } from './elicitHandler';
import { cliSamplingHandler, type CliSamplingMode } from './samplingHandler';
import type { Output } from './output';
import { Prompter } from './prompter';
import { terminalDecisionHook, terminalResultReview, type CliHooks } from './policyPorts';
import { renderPlan, stepTitle } from './renderPlan';
import { planReport, runStatus, type RunReport } from './runReport';
import { cliConnection } from './cliConnection';
import { openRunFiles, printChangedFiles } from './runFiles';
import { firstLine, safeText } from './safeText';
import { stopServer } from './stopServer';

export interface RunOptions {
  /** `--server NAME`: a server of ./.vscode/mcp.json, resolved (src/cli/mcpJsonServer.ts). */
  server?: ResolvedServer;
  /** `--server`: the command line, already split into words. */
  command?: string[];
  /** `--url`. */
  url?: string;
  /** `--name`: what messages call the server (default: its script, package or host). */
  name?: string;
  /** `--header NAME=VALUE` (HTTP only). */
  headers: Record<string, string>;
  tool: string;
  args: Record<string, unknown>;
  yes: boolean;
  answers: ReadonlyMap<string, string>;
  /** `--timeout`, per call. */
  timeoutMs: number;
  json: boolean;
  /** `--ledger FILE`. */
  ledger?: string;
  /** `--verbose`: the connection's log on stderr. */
  verbose: boolean;
  /** Whether questions can be asked (stdin and stdout are a terminal, or PLANGATE_ASSUME_TTY=1). */
  interactive: boolean;
  /** The CLI's version, sent as clientInfo. */
  version: string;
  /** `--client-id`: a client registered with the server's authorization server beforehand. */
  clientId?: string;
  /** `--client-secret` (or PLANGATE_CLIENT_SECRET): that client's secret. */
  clientSecret?: string;
  /** `--client-metadata-url URL`: a Client ID Metadata Document to use as the client id where the server takes one. */
  clientMetadataUrl?: string;
  /** `--root DIR`s (absolute): the roots offered to the server; none given, the client declares no roots. */
  roots?: string[];
  /** `--token-store FILE`: keep the sign-in there (created 0600) instead of for this run only. */
  tokenStore?: string;
  /** How long a sign-in may wait for the browser to come back (default 5 min). */
  signInWaitMs?: number;
  /** The policy the run honours: `--policy FILE` (your rules) and the workspace file in the current folder. */
  policy?: PolicyRules;
  /** `--hooks FILE`: the decision hooks your rules may name (the value of `plangate.decisionHooks`). */
  hooks?: CliHooks;
  /** `--sandbox FILE|on`: run the stdio server in a sandbox with these rules (VS Code's `sandbox` block, defaults merged). */
  sandbox?: SandboxRules;
  /** `--sampling decline|ask`: what a server's sampling request gets (default: declined, with a line on stderr). */
  sampling?: CliSamplingMode;
}

const one = (text: unknown, max = 300) => safeText(text, { max });

/** The ledger's reason for a plan whose approval at the terminal Gate.approve refused (the user must look again). */
export const REFUSED_APPROVAL = 'the approval was refused: the plan changed after it was shown';

/** Programs that run a server given as their argument: the server is named by that argument, not by them. */
const LAUNCHERS = new Set([
  'node',
  'nodejs',
  'bun',
  'bunx',
  'deno',
  'npx',
  'pnpx',
  'pnpm',
  'npm',
  'yarn',
  'tsx',
  'ts-node',
  'python',
  'python3',
  'py',
  'uv',
  'uvx',
  'pipx',
  'ruby',
  'php',
  'java',
  'dotnet',
  'sh',
  'bash',
  'cmd',
]);
/** Launcher sub-commands that come before the server (`deno run x.ts`, `uv run server.py`, `pnpm dlx pkg`). */
const SUBCOMMANDS = new Set(['run', 'exec', 'dlx', 'x', 'tool']);
/** Options whose next word is the server (`python -m pkg`, `java -jar server.jar`). */
const SERVER_OPTIONS = new Set(['-m', '-jar', '--project']);

/**
 * The name the server goes by in messages: `--name`, else the server the command starts (`node dist/fixtureServer.js`
 * is `fixtureServer.js`, `npx -y @scope/server` is `@scope/server`, `python -m srv` is `srv`), else the command's
 * file name, or the URL's host.
 */
export function serverName(options: Pick<RunOptions, 'command' | 'url' | 'name'>): string {
  if (options.name?.trim()) return options.name.trim();
  if (options.command?.length) {
    const program = basename(options.command[0]!).replace(/\.(exe|cmd|bat)$/i, '');
    if (LAUNCHERS.has(program.toLowerCase())) {
      const args = options.command.slice(1);
      for (let i = 0; i < args.length; i++) {
        const word = args[i]!;
        if (SERVER_OPTIONS.has(word) && args[i + 1]) return scriptName(args[i + 1]!);
        if (word.startsWith('-') || (i === 0 && SUBCOMMANDS.has(word))) continue;
        return scriptName(word);
      }
    }
    return program || 'server';
  }
  try {
    return new URL(options.url ?? '').host || 'server';
  } catch {
    return 'server';
  }
}

/** A script path by its file name; a scoped package (`@scope/name@1.2`) as written. */
function scriptName(word: string): string {
  return word.startsWith('@') ? word : basename(word) || word;
}

function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
}

/** The server to start or connect to: `--server NAME` of mcp.json, a `--server` command line, or `--url`. */
export function serverConfig(
  options: Pick<RunOptions, 'server' | 'command' | 'url' | 'name' | 'headers' | 'clientSecret' | 'sandbox'>,
): ResolvedServer {
  if (options.server) {
    const named = { ...options.server, name: options.name?.trim() || options.server.name };
    if (named.type === 'stdio' && options.sandbox) named.sandbox = { reason: 'requested', rules: options.sandbox };
    return named;
  }
  const name = serverName(options);
  if (options.command?.length) {
    const [command, ...args] = options.command;
    // The user's own shell environment, as a shell would pass it (the SDK alone would pass only a few variables).
    const base: ResolvedStdioServer = {
      name,
      source: 'settings-user',
      type: 'stdio',
      command: command!,
      args,
      env: inheritedEnv(),
      cwd: process.cwd(),
      secrets: [],
    };
    if (options.sandbox) base.sandbox = { reason: 'requested', rules: options.sandbox };
    return base;
  }
  const secrets = Object.entries(options.headers)
    .filter(([k]) => isSecretKey(k))
    .map(([, v]) => v);
  if (options.clientSecret) secrets.push(options.clientSecret);
  return { name, source: 'settings-user', type: 'http', url: options.url!, headers: options.headers, secrets };
}

/** Prints a line per step as the workflow changes: "[k/n] tool — label … ok: summary" (nested plans indented). */
class ProgressPrinter {
  private readonly seen = new Map<string, StepRecord['state']>();

  constructor(private readonly out: Output) {}

  /** Looks only at what the event can have changed: its step (or, for plan-wide events, every step), then the parent steps above. */
  update(change: WorkflowChange): void {
    const event = change.event;
    if (event.type === 'restored' || !('planId' in event)) return; // submissions are not plans
    let plan = getPlan(change.state, event.planId);
    if (!plan) return;
    const step = 'step' in event ? plan.steps[event.step] : undefined;
    if (step) this.step(plan, step);
    else for (const s of plan.steps) this.step(plan, s);
    // A nested plan that finished settles the parent step that produced it (and so on upwards).
    for (let hops = 0; plan.parentId !== undefined && plan.parentStep !== undefined && hops < 16; hops++) {
      const parent = getPlan(change.state, plan.parentId);
      const parentStep = parent?.steps[plan.parentStep];
      if (!parent || !parentStep) break;
      this.step(parent, parentStep);
      plan = parent;
    }
  }

  private step(plan: PlanRecord, step: StepRecord): void {
    const key = `${plan.id}:${step.index}`;
    const before = this.seen.get(key);
    if (before === step.state) return;
    this.seen.set(key, step.state);
    const pad = '  '.repeat(plan.depth + 1);
    const head = `${pad}[${step.index + 1}/${plan.steps.length}] `;
    switch (step.state) {
      case 'running':
        this.out.startLine(`${head}${stepTitle(step.call)} … `);
        break;
      case 'ok': {
        const summary = step.summary ? `: ${one(firstLine(step.summary, 160))}` : '';
        this.out.endLine(`ok${summary}`, `${head}${one(step.call.tool, 200)} `);
        break;
      }
      case 'failed':
      case 'unknown':
        this.out.endLine(`failed: ${safeText(step.error ?? 'no message', { max: 1000 })}`, `${head}${one(step.call.tool, 200)} `);
        break;
      case 'skipped':
        this.out.endLine('skipped', `${head}${one(step.call.tool, 200)} `);
        break;
      default:
        break;
    }
  }
}

/** Runs `plangate run`; resolves with the exit code. Closes the connection (ending a stdio server) before it resolves. */
export async function runCommand(options: RunOptions, out: Output): Promise<number> {
  const config = serverConfig(options);
  const prompter = options.interactive ? new Prompter(out) : undefined;
  const cancel = new CancellationTokenSource();
  // Sampling records wait for the run's ledger, which opens once the server is up (a request comes during a call).
  const samplingRecords: SamplingRecords = { pending: [] };
  const sampling = cliSamplingHandler({
    out,
    mode: options.sampling ?? 'decline',
    prompter,
    policy: options.policy,
    sandboxed: () => connection.sandboxed,
    record: (event) => (samplingRecords.workflow ? samplingRecords.workflow.dispatch(event) : samplingRecords.pending.push(event)),
  });
  const connection = cliConnection(
    config,
    { ...options, verbose: options.verbose === true, elicit: elicitHandler({ out, prompter, yes: options.yes }), sampling },
    out,
  );

  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) {
      out.error('plangate: interrupted again; quitting now.');
      process.exit(130);
    }
    out.error('plangate: cancelling… (press Ctrl-C again to quit at once)');
    cancel.cancel();
    prompter?.cancel();
    if (connection.state === 'starting') void connection.stop();
  };
  process.on('SIGINT', onSigint);
  const cleanups: (() => void)[] = [];
  try {
    return await run(options, out, connection, prompter, cancel, cleanups, samplingRecords);
  } finally {
    process.off('SIGINT', onSigint);
    prompter?.close();
    await stopServer(connection);
    for (const c of cleanups) {
      try {
        c();
      } catch {
        /* closing the ledger file must not hide the run's outcome */
      }
    }
    cancel.dispose();
  }
}

/** The connection's start-up advice names mcp.json fields; on the command line those are flags. */
export function inCliWords(message: string): string {
  return message
    .replace(
      /the Authorization header in its "headers" configuration/g,
      'the Authorization header: pass it with --header "Authorization=…"',
    )
    .replace(/the credentials in its "headers" configuration/g, 'the credentials you pass with --header')
    .replace(/([Ff])ix "url"/g, '$1ix --url')
    .replace(/and "url" \(/g, 'and --url (')
    .replace(/or set "command" to its absolute path/g, 'or give its absolute path in --server')
    .replace(/(did not answer "initialize" within [\d.]+ s\.)/, '$1 If it only starts slowly, give it longer with --timeout SECONDS.');
}

function printResult(out: Output, result: ToolResult): void {
  const content = Array.isArray(result.content) ? result.content : [];
  let printed = false;
  for (const block of content) {
    if (!block || typeof block !== 'object') continue;
    const b = block as Record<string, unknown>;
    if (b.type === 'text' && typeof b.text === 'string') out.info(safeText(b.text, { keepNewlines: true }));
    else if (b.type === 'image' || b.type === 'audio')
      out.info(`[${b.type} ${one(b.mimeType, 100)}, ${typeof b.data === 'string' ? Math.floor((b.data.length * 3) / 4) : 0} bytes]`);
    else if (b.type === 'resource_link')
      out.info(`[resource link ${one(b.uri, 500)}${typeof b.name === 'string' ? ` (${one(b.name, 100)})` : ''}]`);
    else if (b.type === 'resource' && b.resource && typeof b.resource === 'object') {
      const r = b.resource as Record<string, unknown>;
      out.info(`[resource ${one(r.uri, 500)}]`);
      if (typeof r.text === 'string') out.info(safeText(r.text, { keepNewlines: true }));
    } else out.info(`[${one(b.type, 50)} content]`);
    printed = true;
  }
  if (!printed && result.structuredContent !== undefined) {
    let text: string;
    try {
      text = JSON.stringify(result.structuredContent, null, 2);
    } catch {
      text = '(structured content that cannot be printed)';
    }
    out.info(safeText(text, { keepNewlines: true }));
    printed = true;
  }
  if (!printed) out.info('(the result is empty)');
}

/** Where the run's sampling records go: held until the run's ledger is open. */
interface SamplingRecords {
  workflow?: Workflow;
  pending: SamplingRecord[];
}

async function run(
  options: RunOptions,
  out: Output,
  connection: ServerConnection,
  prompter: Prompter | undefined,
  cancel: CancellationTokenSource,
  cleanups: (() => void)[],
  samplingRecords: SamplingRecords,
): Promise<number> {
  const server = connection.name;
  const fail2 = (message: string) => {
    out.error(`plangate run: ${message}`);
    return 2;
  };

  try {
    await connection.start();
  } catch (err) {
    if (cancel.token.isCancellationRequested) return fail2('cancelled while connecting; nothing ran.');
    return fail2(safeText(inCliWords(err instanceof Error ? err.message : String(err)), { keepNewlines: true, max: 10_000 }));
  }

  const tools = connection.tools.map((t) => t.name);
  if (tools.length > 0 && !tools.includes(options.tool)) {
    const shown =
      tools
        .slice(0, 30)
        .map((t) => one(t, 100))
        .join(', ') + (tools.length > 30 ? ', …' : '');
    out.error(`plangate run: server '${one(server, 100)}' has no tool '${one(options.tool, 100)}'; nothing ran. Its tools: ${shown}.`);
    if (options.json) out.report({ status: 'missing_tool', steps: [] } satisfies RunReport);
    return 1;
  }

  let workflow: Workflow;
  if (options.ledger) {
    try {
      const opened = openFileLedger(options.ledger);
      cleanups.push(() => opened.dispose());
      for (const w of opened.warnings) out.error(`warning: ${safeText(w, { max: 1000 })}`);
      workflow = opened.workflow;
    } catch (err) {
      return fail2(
        `cannot open the ledger ${safeText(options.ledger)}: ${safeText(err instanceof Error ? err.message : String(err))}; nothing ran.`,
      );
    }
  } else {
    workflow = new Workflow(new MemoryLedgerSink());
  }
  samplingRecords.workflow = workflow;
  for (const event of samplingRecords.pending.splice(0)) workflow.dispatch(event);
  // The engine the panel uses: one Gate (with its one door) takes the planning call in, approves and runs; the terminal
  // answers what the run waits on (TerminalGateHost), as the panel's buttons do.
  const invoker = new ConnectionInvoker(connection);
  const policy = options.policy;
  // The checkpoint of the files the plan may touch, taken by the gate after the approval and before the first step
  // (beside --ledger, else for this run only), and the watch that lists what the run changed.
  const files = openRunFiles(workflow, options.ledger);
  cleanups.push(() => files.dispose());
  const gate = new Gate(workflow, {
    invoker,
    settings: () => ({ stepTimeoutMs: options.timeoutMs, allowCrossServer: false }),
    newId: randomUUID,
    beforeRun: (plan) => files.engine.beforeRun(plan),
    ...(policy
      ? {
          policy: {
            policy: (call) => evaluate(policy, call, { workspaceRoot: process.cwd(), realPath: nodeRealPath }),
            toolInfo: (_server: string, tool: string) => connection.tools.find((t) => t.name === tool),
            serverSandboxed: () => connection.sandboxed,
            // A call the policy asks about (not covered by "Proceed?"): asked on the terminal; --yes allows it once.
            ask: async ({ call, verdict }): Promise<CallAskAnswer> => {
              out.info(`  ${safeText(verdictWords(verdict.rule), { max: 1000 })}`);
              if (options.yes) return { answer: 'once' };
              if (!prompter) return { answer: 'deny', note: 'there is no terminal to ask on; pass --yes to allow it' };
              return (await prompter.confirm(`Allow '${one(call.tool, 100)}' on '${one(call.server, 100)}'?`))
                ? { answer: 'once' }
                : { answer: 'deny' };
            },
            // A rule's `hook` runs as in the extension; a rule's `review: "result"` is asked on the terminal.
            decisionHook: terminalDecisionHook(options.hooks, out),
            review: terminalResultReview(prompter, out, (result) => printResult(out, result)),
          },
        }
      : {}),
  });
  cleanups.unshift(() => gate.dispose());
  // A server that changes its tools while the plan is on screen: the plan is resolved again, and the approval is
  // checked against what was shown (as in the panel).
  const toolChanges = connection.onDidChangeTools(() => void gate.refreshResolutions());
  cleanups.unshift(() => toolChanges.dispose());

  /**
   * Watches the run of plan `planId` to its end, printing its steps; `start` starts it (an approval), or returns an exit
   * code when it cannot. Then says how it ended and returns the exit code.
   */
  async function watchRun(planId: string, start: () => Promise<number | undefined>): Promise<number> {
    const record = () => getPlan(workflow.state, planId)!;
    const finish = (report: RunReport, code: number) => {
      if (options.json) out.report(report);
      return code;
    };
    const progress = new ProgressPrinter(out);
    const listener = workflow.onDidChange((change) => progress.update(change));
    const host = new TerminalGateHost(gate, new CliRunnerHost({ out, prompter, yes: options.yes, answers: options.answers }), out);
    const failures = gate.onDidFail(({ message }) =>
      out.error(`plangate run: the ledger could not be written, so the run stopped: ${safeText(message)}`),
    );
    const cancelRun = cancel.token.onCancellationRequested(() => gate.cancel(planId));
    try {
      const early = await start();
      if (early !== undefined) return early;
      await whenRunEnds(gate, planId);
      // A failed step blocks the plan; the CLI does not retry or skip: it stops, as the panel's Stop does (a stopped
      // nested plan fails its parent's step, which blocks the parent in turn).
      for (let level = 0; level < 32 && record().phase === 'blocked' && !gate.isRunning(planId); level++)
        if (gate.stop(planId) !== undefined) break;
    } finally {
      cancelRun.dispose();
      failures.dispose();
      host.dispose();
      listener.dispose();
    }
    let final = record();

    if (final.phase === 'awaiting_approval' && final.reapproval) {
      // The server changed a step's tool after the approval: the terminal's approval no longer covers it.
      out.error(
        `plangate run: step ${final.reapproval.step + 1} was not sent: ${safeText(final.reapproval.change, { max: 2000 })}. Run the command again to review the plan as it is now.`,
      );
      gate.reject(planId, "a step's tool changed after the approval");
      final = record();
    }
    await printChangedFiles(out, files, planId);
    const status = runStatus(final);
    const report = planReport(workflow.state, final, status);
    if (status === 'completed') {
      const n = final.steps.length;
      out.info(`Completed ${n} step${n === 1 ? '' : 's'}.`);
      if (report.follow_up) out.info(`Follow-up: ${one(report.follow_up, 1000)}`);
    } else {
      const failed = final.steps.find((s) => s.state === 'failed' || s.state === 'unknown');
      const notRun = final.steps.filter((s) => s.state === 'not_run').map((s) => s.index + 1);
      const later = notRun.length ? ` Not run: step${notRun.length === 1 ? '' : 's'} ${notRun.join(', ')}.` : '';
      if (final.outcome === 'cancelled') out.info(`Cancelled.${later}`);
      else if (failed)
        out.info(
          `Failed at step ${failed.index + 1} (${one(failed.call.tool, 100)}): ${safeText((failed.error ?? 'no message').replace(/\.\s*$/, ''), { max: 1000 })}.${later}`,
        );
      else if (final.outcome === 'rejected') out.info(`Stopped before a step whose tool changed.${later}`);
      else out.info(`Stopped: a step was not confirmed.${later}`);
      const tail = connection.state === 'running' ? '' : connection.stderrTail().trim();
      if (tail) out.error(`Last stderr lines of server '${one(server, 100)}':\n${safeText(tail, { keepNewlines: true })}`);
    }
    return finish(report, status === 'completed' ? 0 : 1);
  }

  // A run killed while a step of its plan ran as a task, run again with the same --ledger: the step watches its task
  // again (the server still knows it), and the plan runs on; the planning tool is not called again, nothing is sent twice.
  const interrupted = options.ledger ? interruptedTaskPlan(workflow.state, server, options.tool, options.args) : undefined;
  if (interrupted) {
    const step = interrupted.steps[interrupted.blockedStep!];
    if ((await gate.resumeTasks()).includes(interrupted.id)) {
      out.info(
        `Resuming the plan '${one(options.tool, 100)}' returned before: step ${step.index + 1} (${one(step.call.tool, 100)}) still runs as task ${one(step.task!.id, 100)} on server '${one(server, 100)}'; watching it again (nothing is sent twice).`,
      );
      return watchRun(interrupted.id, () => Promise.resolve(undefined));
    }
    out.error(
      `warning: step ${step.index + 1} (${one(step.call.tool, 100)}) of the plan in ${safeText(options.ledger!)} ran as task ${one(step.task!.id, 100)}, which server '${one(server, 100)}' no longer knows; its outcome is unknown. Calling '${one(options.tool, 100)}' again for a new plan.`,
    );
  }

  const abort = new AbortController();
  const sub = cancel.token.onCancellationRequested(() => abort.abort('Cancelled by the user'));
  let outcome: CallOutcome;
  try {
    outcome = await gate.call({
      server,
      tool: options.tool,
      args: options.args,
      entrance: 'cli',
      decision: { by: 'user', what: 'plangate run --tool with these --args' },
      timeoutMs: options.timeoutMs,
      signal: abort.signal,
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const tail = connection.state === 'running' ? '' : connection.stderrTail().trim();
    return fail2(
      `calling '${one(options.tool, 100)}' on server '${one(server, 100)}' failed: ${safeText(message, { max: 2000 })}; nothing ran.${tail ? `\nLast stderr lines:\n${safeText(tail, { keepNewlines: true })}` : ''}`,
    );
  } finally {
    sub.dispose();
  }

  const { result, received } = outcome;
  switch (received.kind) {
    case 'plan':
      break;
    case 'unrecorded':
      return fail2(`the plan could not be recorded: ${safeText(received.reason)}`);
    case 'invalid_plan': {
      const lines = received.problems.map((p) => `  ${safeText(formatProblem(p), { max: 1000 })}`);
      return fail2(
        `'${one(options.tool, 100)}' returned an orchestrated_plan that is not valid (${received.problems.length} problem${received.problems.length === 1 ? '' : 's'}); nothing ran.\n${lines.join('\n')}`,
      );
    }
    default: {
      if (result.isError === true && received.kind === 'plain') {
        return fail2(
          `'${one(options.tool, 100)}' reported an error: ${safeText(resultText(result, 4000) || '(no message)', { keepNewlines: true })}`,
        );
      }
      if (options.json) {
        out.report({ status: 'not_a_plan', steps: [], result } satisfies RunReport);
      } else if (received.kind === 'collect_form' && received.classification.kind === 'collect_form') {
        out.info(
          `'${one(options.tool, 100)}' returned an mcp-rune collect-mode form (model ${one(received.classification.form.schema.model, 100)}), not a plan. The CLI does not fill forms; open it in VS Code with Plangate.`,
        );
      } else if (received.kind === 'collect_error' && received.classification.kind === 'collect_error') {
        out.info(
          `'${one(options.tool, 100)}' returned a form error, not a plan: ${safeText(received.classification.error.message, { max: 2000 })}`,
        );
      } else {
        printResult(out, result);
      }
      return 0;
    }
  }

  const planId = received.planId;
  for (const w of received.warnings ?? []) out.error(`warning: ${safeText(formatProblem(w), { max: 1000 })}`);
  const record = () => getPlan(workflow.state, planId)!;
  const plan: OrchestratedPlan = record().plan;
  const finish = (report: RunReport, code: number) => {
    if (options.json) out.report(report);
    return code;
  };

  out.info(`'${one(options.tool, 100)}' on server '${one(server, 100)}' returned a plan:`, ...renderPlan(plan, '  '));

  if (plan.status !== 'ok') {
    out.info(`The plan's status is ${one(plan.status, 50)}, so nothing runs (the CLI does not run recovery actions).`);
    return finish(planReport(workflow.state, record(), 'plan_status'), 1);
  }

  // Resolved before the question (the gate started it when the plan arrived), so the approval covers each step's
  // server and its tool's definition.
  await gate.resolution(planId);
  const resolution = resolveSteps(
    record().steps.map((s) => s.call),
    server,
    await invoker.catalog(),
    { allowCrossServer: false },
  );
  if (!resolution.ok) {
    const errors = new Map<number, string>();
    for (const m of resolution.missing) {
      errors.set(m.index, `tool '${m.tool}' is not offered by server '${server}'`);
      out.error(`plangate run: step ${m.index + 1}: tool '${one(m.tool, 100)}' is not offered by server '${one(server, 100)}'.`);
    }
    out.error('plangate run: every step must run on the one connected server; nothing ran.');
    gate.reject(planId, 'missing tools');
    return finish(planReport(workflow.state, record(), 'missing_tool', errors), 1);
  }

  for (const st of record().steps) {
    const mark = stepPolicyMark(st.policy);
    if (mark?.decision === 'deny') out.error(`  Step ${st.index + 1} cannot run: ${safeText(mark.text, { max: 1000 })}`);
  }
  if (record().steps.some((st) => st.call.tool !== 'ask_user')) {
    out.info(
      `  Server: every step runs on '${one(server, 100)}', the one connected; the approval covers each step's tool as that server lists it now, and a step whose tool changes before it runs is not sent.`,
    );
  }
  // What the terminal showed: the approval covers exactly this (Gate.approve refuses it if the plan changed since).
  const shownHash = planApprovalHash(record());

  if (record().steps.length > 0) {
    if (options.yes) {
      out.info('Approved by --yes.');
    } else if (!prompter) {
      gate.reject(planId, 'no terminal to approve on');
      out.error(
        'plangate run: the plan needs your approval, but there is no terminal to ask "Proceed?" on (stdin and stdout must be a terminal). Nothing ran. Review the plan above, then pass --yes to approve it (and its confirm steps and nested plans).',
      );
      return 2;
    } else if (!(await proceed(prompter, gate, planId, out))) {
      gate.reject(planId, 'rejected at the terminal');
      out.info('Rejected; nothing ran.');
      return finish(planReport(workflow.state, record(), 'rejected'), 1);
    }
  }

  return watchRun(planId, async () => {
    const refused = await gate.approve(planId, undefined, shownHash);
    if (refused !== undefined) {
      const changes = gate.review(planId)?.changes ?? [];
      const why = changes.length
        ? `the plan changed while you were reviewing it (${changes.map((c) => `step ${c.step + 1}: ${c.text}`).join('; ')})`
        : refused.replace(/\.\s*$/, '');
      out.error(
        `plangate run: the approval was refused: ${safeText(why, { max: 4000 })}. Nothing ran. Run the command again to review the plan as it is now.`,
      );
      gate.reject(planId, REFUSED_APPROVAL);
      return finish(planReport(workflow.state, record(), 'rejected'), 1);
    }
    return undefined;
  });
}

/**
 * The plan a killed run left behind in the ledger: planned by `tool` with `args` on `server`, blocked on a step whose
 * call ran as a task that had not ended (see Gate.resumeTasks). The latest such plan.
 */
export function interruptedTaskPlan(
  state: WorkflowState,
  server: string,
  tool: string,
  args: Record<string, unknown>,
): PlanRecord | undefined {
  return activePlans(state)
    .filter((p) => {
      const step = p.phase === 'blocked' && p.blockedStep !== undefined ? p.steps[p.blockedStep] : undefined;
      return (
        p.parentId === undefined &&
        p.origin.server === server &&
        p.origin.tool === tool &&
        sameJson(p.origin.args, args) &&
        step?.state === 'unknown' &&
        step.task !== undefined &&
        !isTerminalTask(step.task.status)
      );
    })
    .at(-1);
}

/** Resolves when no run of plan `planId` goes on (at once when none started). */
function whenRunEnds(gate: Gate, planId: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (gate.isRunning(planId)) return;
      sub.dispose();
      resolve();
    };
    const sub = gate.onDidChange(check);
    check();
  });
}

/**
 * Asks "Proceed?". A step that changes while the question is on screen (the server redefined its tool) is said at
 * once, as the panel marks it; an approval given anyway is refused by Gate.approve.
 */
async function proceed(prompter: Prompter, gate: Gate, planId: string, out: Output): Promise<boolean> {
  const said = new Set<string>();
  const sub = gate.onDidChange(() => {
    for (const c of gate.review(planId)?.changes ?? []) {
      if (said.has(`${c.step}:${c.text}`)) continue;
      said.add(`${c.step}:${c.text}`);
      out.error(
        `warning: step ${c.step + 1} changed while you were reviewing: ${safeText(c.text, { max: 2000 })}. The plan above is not what would run; answer n and run the command again to review it as it is now.`,
      );
    }
  });
  try {
    return await prompter.confirm('Proceed?');
  } finally {
    sub.dispose();
  }
}
