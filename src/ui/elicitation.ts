import * as vscode from 'vscode';
import { answerUrlElicitation } from '../core/base/urlElicitation';
import type { ElicitAnswer, ElicitParams } from '../mcp/connection';
import { openCheckedUrl } from './openUrl';
import type { CardFeature } from './panel/cardFeature';

/**
 * Answers servers' `elicitation/create` requests: a form request becomes a form in the panel (Accept / Decline /
 * Cancel); a URL request (http(s) only, see core/base/urlElicitation.ts) asks, in a modal showing the URL with hidden
 * characters marked, whether to open the server's page.
 */
export function elicitationHandler(
  panel: Pick<CardFeature, 'elicit'>,
  log?: Pick<vscode.LogOutputChannel, 'info' | 'warn'>,
): (server: string, params: ElicitParams) => Promise<ElicitAnswer> {
  return async (server, params) => {
    if ('mode' in params && params.mode === 'url') {
      return answerUrlElicitation(server, params, {
        ask: async (message, detail) => {
          const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, 'Open', 'Decline');
          return choice === 'Open' ? 'open' : choice === 'Decline' ? 'decline' : 'cancel';
        },
        open: openCheckedUrl,
        refused: (text) => void vscode.window.showWarningMessage(text),
        log: (level, text) => log?.[level](text),
      });
    }
    const form = params as { message: string; requestedSchema?: unknown };
    return panel.elicit({ server, message: form.message, requestedSchema: form.requestedSchema ?? { type: 'object', properties: {} } });
  };
}
