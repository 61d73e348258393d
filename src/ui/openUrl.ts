/**
 * Opening a URL that a server, an app or a tool result supplied, in the browser: only what core/base/externalUrl.ts allows
 * (http: and https:), shown first in a modal with hidden characters marked, then handed to `openExternal` as the
 * checked text (a string: `Uri.parse` would re-encode its query; VS Code's openExternal accepts one, though the API
 * declares a Uri).
 */
import * as vscode from 'vscode';
import { checkExternalUrl } from '../core/base/externalUrl';
import { visibleText } from '../shared/visibleText';

/** Opens an already checked http(s) URL (see the module comment); resolves whether it was opened. */
export function openCheckedUrl(url: string): Thenable<boolean> {
  return vscode.env.openExternal(url as unknown as vscode.Uri);
}

/**
 * Checks `raw` (refusing other schemes with a warning that says why), asks `question` in a modal showing the URL, and
 * opens it when the user says Open. `what` names the link in a refusal, without an article ("link a server supplied").
 * Resolves whether the page was opened.
 */
export async function confirmAndOpenUrl(
  raw: unknown,
  question: string,
  what: string,
  log?: Pick<vscode.LogOutputChannel, 'info' | 'warn'>,
): Promise<boolean> {
  const checked = checkExternalUrl(raw, what);
  if (!checked.ok) {
    log?.warn(`${checked.reason} (the URL: ${checked.shown})`);
    void vscode.window.showWarningMessage(checked.reason);
    return false;
  }
  const go = await vscode.window.showWarningMessage(question, { modal: true, detail: checked.shown }, 'Open');
  if (go !== 'Open') return false;
  return openCheckedUrl(checked.url);
}

/**
 * A link from server data that is not a workspace file (`uri` as parsed from `target`): a file elsewhere opens in the
 * editor after asking — never with the system's handler, which would run a program — and a web page in the browser
 * after asking (http(s) only, see {@link confirmAndOpenUrl}); anything else is refused with a warning.
 */
export async function openServerLink(uri: vscode.Uri, target: string): Promise<void> {
  if (uri.scheme === 'file') {
    const go = await vscode.window.showWarningMessage(
      'Open a file outside the workspace that a server named? It opens in the editor.',
      { modal: true, detail: visibleText(uri.fsPath) },
      'Open',
    );
    if (go === 'Open') await vscode.window.showTextDocument(uri, { preview: true });
    return;
  }
  await confirmAndOpenUrl(target, 'Open a link that a server supplied?', 'link a server supplied');
}

/** Opens a link from server data: workspace files directly, anything else only after the user confirms. */
export async function openLink(target: string): Promise<void> {
  let uri: vscode.Uri;
  try {
    uri = /^[a-z][a-z0-9+.-]*:/i.test(target) ? vscode.Uri.parse(target, true) : vscode.Uri.file(target);
  } catch {
    void vscode.window.showErrorMessage(`Plangate: "${target.slice(0, 200)}" is not a link that can be opened.`);
    return;
  }
  const inWorkspace = uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(uri);
  if (inWorkspace) {
    await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: false });
    return;
  }
  await openServerLink(uri, target);
}
