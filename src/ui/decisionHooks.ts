import * as vscode from 'vscode';
import {
  hookAnswerWords,
  hookNamed,
  parseDecisionHooks,
  type DecisionHookConfig,
  type HookAnswer,
  type HookRequest,
} from '../core/policy/decisionHook';
import { runDecisionHook } from '../node/decisionHookRunner';
import { Settings } from './constants';

/**
 * The user's decision hooks (`plangate.decisionHooks`): the user's value only, as the other protective settings
 * (settings.ts `userFlag`) — a workspace value is ignored, it would let a cloned folder run a command or answer for the
 * user. Read at each call, so a change applies to the next one.
 */
export function decisionHooks(): Record<string, DecisionHookConfig | string> {
  return parseDecisionHooks(vscode.workspace.getConfiguration(Settings.section).inspect<unknown>(Settings.decisionHooks)?.globalValue);
}

/** The door's `decisionHook`: runs the user's hook by its name in the workspace folder, and logs its answer. */
export async function runUserHook(request: HookRequest, log: vscode.LogOutputChannel): Promise<HookAnswer> {
  const config = hookNamed(decisionHooks(), request.hook, 'your setting plangate.decisionHooks');
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const answer = 'command' in config ? await runDecisionHook(config, { ...request, ...(cwd ? { cwd } : {}) }) : config;
  const words = hookAnswerWords(answer);
  (answer.failure ? log.warn : log.info).call(
    log,
    `Policy: hook '${request.hook}' (rule '${request.rule}') on ${request.tool} of ${request.server} ${words}.`,
  );
  return answer;
}
