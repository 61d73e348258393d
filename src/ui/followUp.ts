import * as vscode from 'vscode';
import type { Gate } from '../core/gate';
import type { ToolCaller } from './callTool';

/**
 * The user answered Yes to a plan's follow-up question: continue in the chat with the question as the prompt
 * when a chat model is available; otherwise offer to call the planning tool again.
 */
export async function followUpYes(gate: Gate, caller: ToolCaller, planId: string): Promise<void> {
  const record = gate.workflow.state.plans[planId];
  if (!record) return;
  const question = record.plan.follow_up ?? '';
  const models = await Promise.resolve(vscode.lm?.selectChatModels?.()).catch(() => []);
  if (models && models.length > 0) {
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: question });
    return;
  }
  const again = `Call ${record.origin.tool} again`;
  const choice = await vscode.window.showInformationMessage(
    `Plangate: no chat is available to continue "${question}". Call the planning tool ${record.origin.tool} on ${record.origin.server} again?`, again);
  if (choice === again) await caller.call(record.origin.server, record.origin.tool, record.origin.args, 'follow_up');
}
