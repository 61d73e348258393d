/**
 * Decision hooks: a user rule may hand its decision to a command the user configured (`plangate.decisionHooks`, user
 * settings only). The hook receives the call as JSON on stdin — shaped after Claude Code's PreToolUse hooks
 * (`hook_event_name`, the tool, its input), with MCP's server and Plangate's entrance — and answers allow, ask or deny
 * with a reason on stdout. What it prints is read here (pure); the process runs in src/node/decisionHookRunner.ts. A
 * hook that fails, times out or prints anything else means ask, and says why.
 */
import type { PolicyDecision, PolicyEntrance } from './rules';

/** A hook as the user configured it. */
export interface DecisionHookConfig {
  command: string;
  args?: readonly string[];
  /** How long the hook may take before it counts as failed (ask). */
  timeoutMs: number;
}

/** The call a hook is asked about. */
export interface HookRequest {
  /** The hook's name in `plangate.decisionHooks`. */
  hook: string;
  /** The id of the user rule that named the hook. */
  rule: string;
  server: string;
  tool: string;
  args: Record<string, unknown>;
  entrance: PolicyEntrance;
  /** The tool's annotations as its server lists them (untrusted). */
  annotations?: unknown;
  /** The workspace folder, when there is one. */
  cwd?: string;
  /** Aborted when the caller gives up: the hook is stopped. */
  signal?: AbortSignal;
}

/** What a hook answered; `failure` says why a hook that did not answer counts as `ask`. */
export interface HookAnswer {
  decision: PolicyDecision;
  reason?: string;
  failure?: string;
}

/** The longest reason kept from a hook (it reaches the card, the ledger and, with a deny, the caller). */
export const MAX_HOOK_REASON = 1000;
/** The most a hook may print; more is a failure (ask). */
export const MAX_HOOK_OUTPUT = 64 * 1024;

/** The JSON a hook reads on stdin. */
export function hookInput(request: HookRequest): string {
  return JSON.stringify({
    hook_event_name: 'PreToolUse',
    hook: request.hook,
    rule: request.rule,
    server: request.server,
    tool: request.tool,
    tool_name: request.tool,
    arguments: request.args,
    tool_input: request.args,
    entrance: request.entrance,
    ...(request.annotations !== undefined ? { annotations: request.annotations } : {}),
    ...(request.cwd ? { cwd: request.cwd } : {}),
  });
}

/**
 * Reads what a hook printed: `{ "decision": "allow" | "ask" | "deny", "reason": "…" }`, or Claude Code's
 * `{ "hookSpecificOutput": { "permissionDecision": …, "permissionDecisionReason": … } }`. Anything else is a failure
 * (ask), named.
 */
export function readHookOutput(stdout: string): HookAnswer {
  const text = stdout.trim();
  if (text === '') return failed('it printed nothing');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return failed(`it printed something that is not JSON (${quote(text)})`);
  }
  const o = isObject(value) ? value : undefined;
  const specific = o && isObject(o.hookSpecificOutput) ? o.hookSpecificOutput : undefined;
  const decision = specific?.permissionDecision ?? o?.decision;
  const reason = specific?.permissionDecisionReason ?? o?.reason;
  if (decision !== 'allow' && decision !== 'ask' && decision !== 'deny')
    return failed(`its answer has no "decision" of "allow", "ask" or "deny" (${quote(text)})`);
  if (reason !== undefined && typeof reason !== 'string') return failed('its "reason" is not text');
  const r = reason?.trim();
  return { decision, ...(r ? { reason: r.length > MAX_HOOK_REASON ? `${r.slice(0, MAX_HOOK_REASON)}…` : r } : {}) };
}

/** A hook's time limit when its entry gives none, and the longest one allowed (seconds). */
export const DEFAULT_HOOK_TIMEOUT_S = 10;
export const MAX_HOOK_TIMEOUT_S = 120;

/**
 * The value of `plangate.decisionHooks` (`{ "name": { "command", "args"?, "timeoutSeconds"? } }`), read from whatever
 * the user wrote: each hook's configuration, or why its entry cannot be run (a hook named by a rule then means ask,
 * with that why). `where` names the setting in those words (the extension's setting, the CLI's file).
 */
export function parseDecisionHooks(value: unknown, where = 'plangate.decisionHooks'): Record<string, DecisionHookConfig | string> {
  const hooks: Record<string, DecisionHookConfig | string> = {};
  if (!isObject(value)) return hooks;
  for (const [name, raw] of Object.entries(value)) {
    const entry = isObject(raw) ? raw : {};
    const args = entry.args === undefined ? [] : entry.args;
    if (typeof entry.command !== 'string' || entry.command.trim() === '')
      hooks[name] = `its entry in ${where} needs a "command" (the program to run)`;
    else if (!Array.isArray(args) || !args.every((a) => typeof a === 'string'))
      hooks[name] = `its "args" in ${where} must be a list of strings`;
    else {
      const t =
        typeof entry.timeoutSeconds === 'number' && Number.isFinite(entry.timeoutSeconds) ? entry.timeoutSeconds : DEFAULT_HOOK_TIMEOUT_S;
      hooks[name] = { command: entry.command, args, timeoutMs: Math.min(MAX_HOOK_TIMEOUT_S, Math.max(1, t)) * 1000 };
    }
  }
  return hooks;
}

/** The hook a rule names, from `hooks` (see {@link parseDecisionHooks}), or the answer (ask) saying why it cannot run. */
export function hookNamed(
  hooks: Readonly<Record<string, DecisionHookConfig | string>>,
  name: string,
  where = 'plangate.decisionHooks',
): DecisionHookConfig | HookAnswer {
  const config = Object.hasOwn(hooks, name) ? hooks[name] : undefined;
  if (config === undefined) return failed(`there is no hook '${name}' in ${where}`);
  return typeof config === 'string' ? failed(config) : config;
}

/** The hook's answer as one line for a log or a terminal: "answered deny: reason", "did not answer (why): ask". */
export function hookAnswerWords(answer: HookAnswer): string {
  return answer.failure
    ? `did not answer (${answer.failure}): ask`
    : `answered ${answer.decision}${answer.reason ? `: ${answer.reason}` : ''}`;
}

/** A hook that did not answer: ask, and why. */
export function failed(why: string): HookAnswer {
  return { decision: 'ask', failure: why };
}

/** The deciding rule's reason once its hook answered, in words the card, the ledger and a denied caller read. */
export function hookReason(hook: string, answer: HookAnswer, ruleReason: string): string {
  if (answer.failure) return `hook '${hook}' did not answer (${answer.failure}), so Plangate asks: ${ruleReason}`;
  const verb = { allow: 'allows', ask: 'asks', deny: 'denies' }[answer.decision];
  return `hook '${hook}' ${verb}: ${answer.reason ?? ruleReason}`;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
