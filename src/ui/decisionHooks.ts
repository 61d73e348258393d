import * as vscode from 'vscode';
import { failed, type DecisionHookConfig, type HookAnswer, type HookRequest } from '../core/policy/decisionHook';
import { runDecisionHook } from '../node/decisionHookRunner';
import { Settings } from './constants';

/** A hook's time limit when its entry gives none, and the longest one allowed. */
const DEFAULT_TIMEOUT_S = 10;
const MAX_TIMEOUT_S = 120;

/**
 * The user's decision hooks (`plangate.decisionHooks`): the user's value only, as the other protective settings
 * (settings.ts `userFlag`) — a workspace value is ignored, it would let a cloned folder run a command or answer for the
 * user. Read at each call, so a change applies to the next one.
 */
export function decisionHooks(): Record<string, DecisionHookConfig | string> {
  const value = vscode.workspace.getConfiguration(Settings.section).inspect<unknown>(Settings.decisionHooks)?.globalValue;
  const hooks: Record<string, DecisionHookConfig | string> = {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) return hooks;
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    const entry = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    const args = entry.args === undefined ? [] : entry.args;
    if (typeof entry.command !== 'string' || entry.command.trim() === '')
      hooks[name] = `its entry in plangate.decisionHooks needs a "command" (the program to run)`;
    else if (!Array.isArray(args) || !args.every((a) => typeof a === 'string'))
      hooks[name] = `its "args" in plangate.decisionHooks must be a list of strings`;
    else {
      const t =
        typeof entry.timeoutSeconds === 'number' && Number.isFinite(entry.timeoutSeconds) ? entry.timeoutSeconds : DEFAULT_TIMEOUT_S;
      hooks[name] = { command: entry.command, args, timeoutMs: Math.min(MAX_TIMEOUT_S, Math.max(1, t)) * 1000 };
    }
  }
  return hooks;
}

/** The door's `decisionHook`: runs the user's hook by its name in the workspace folder, and logs its answer. */
export async function runUserHook(request: HookRequest, log: vscode.LogOutputChannel): Promise<HookAnswer> {
  const config = Object.hasOwn(decisionHooks(), request.hook) ? decisionHooks()[request.hook] : undefined;
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const answer =
    config === undefined
      ? failed(`there is no hook '${request.hook}' in your setting plangate.decisionHooks`)
      : typeof config === 'string'
        ? failed(config)
        : await runDecisionHook(config, { ...request, ...(cwd ? { cwd } : {}) });
  const words = answer.failure
    ? `did not answer (${answer.failure}): ask`
    : `answered ${answer.decision}${answer.reason ? `: ${answer.reason}` : ''}`;
  (answer.failure ? log.warn : log.info).call(
    log,
    `Policy: hook '${request.hook}' (rule '${request.rule}') on ${request.tool} of ${request.server} ${words}.`,
  );
  return answer;
}
