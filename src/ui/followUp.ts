import * as vscode from 'vscode';
import { followUpYesAction } from '../core/agent/agentSummary';
import type { Gate } from '../core/engine/gate';
import { planTitle } from '../core/present/workflowWords';
import type { Entrance } from '../core/plan/plan';

/** Calls a tool again the way Call Tool does (ToolCaller). */
export interface FollowUpCaller {
  call(request: { server: string; tool: string; args: Record<string, unknown>; entrance?: Entrance }): Promise<unknown>;
}

/**
 * The user answered Yes to a plan's follow-up question: when a chat model is available, open the chat with a prompt
 * that quotes the server's question, put in the input for the user to read and send (never submitted for them);
 * otherwise offer to call the planning tool again. The decision is {@link followUpYesAction}.
 */
export async function followUpYes(gate: Gate, caller: FollowUpCaller, planId: string): Promise<void> {
  const record = gate.workflow.state.plans[planId];
  if (!record) return;
  const models = await Promise.resolve(vscode.lm?.selectChatModels?.()).catch(() => []);
  const action = followUpYesAction({
    server: record.origin.server,
    tool: record.origin.tool,
    title: planTitle(record, 120),
    question: typeof record.plan.follow_up === 'string' ? record.plan.follow_up : '',
    chatAvailable: !!models && models.length > 0,
  });
  switch (action.kind) {
    case 'openChat':
      await vscode.commands.executeCommand(action.command, action.args);
      return;
    case 'offerReplan': {
      const choice = await vscode.window.showInformationMessage(action.message, action.button);
      if (choice === action.button)
        await caller.call({ server: record.origin.server, tool: record.origin.tool, args: record.origin.args, entrance: 'follow_up' });
      return;
    }
  }
}
