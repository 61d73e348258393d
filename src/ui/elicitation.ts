import * as vscode from 'vscode';
import type { ElicitAnswer, ElicitParams } from '../mcp/connection';
import type { PlanPanel } from './planPanel';

/**
 * Answers servers' `elicitation/create` requests: a form request becomes a form in the panel (Accept / Decline /
 * Cancel); a URL request asks, in a modal, whether to open the server's URL.
 */
export function elicitationHandler(panel: Pick<PlanPanel, 'elicit'>): (server: string, params: ElicitParams) => Promise<ElicitAnswer> {
  return async (server, params) => {
    if ('mode' in params && params.mode === 'url') {
      const url = String((params as { url?: unknown }).url ?? '');
      const open = 'Open';
      const choice = await vscode.window.showWarningMessage(
        `Server "${server}" asks you to open a page: ${params.message}`,
        { modal: true, detail: url },
        open,
        'Decline',
      );
      if (choice === open) {
        await vscode.env.openExternal(vscode.Uri.parse(url, true));
        return { action: 'accept' };
      }
      return { action: choice === 'Decline' ? 'decline' : 'cancel' };
    }
    const form = params as { message: string; requestedSchema?: unknown };
    return panel.elicit({ server, message: form.message, requestedSchema: form.requestedSchema ?? { type: 'object', properties: {} } });
  };
}
