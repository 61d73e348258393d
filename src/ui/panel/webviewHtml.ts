import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { panelCsp, type AppCsp } from '../../core/apps/appNetwork';

/**
 * The panel's HTML shell: a strict CSP with a fresh nonce (no unsafe-inline, no unsafe-eval), scripts and
 * styles only from the extension's own dist/ and media/ folders, images only from those or data: URIs.
 * `appNonce` is a second nonce, for server apps: their sandboxed srcdoc iframes inherit this policy, so their inline
 * scripts and styles carry it (src/core/apps/appResource.ts). It is not the panel's own script nonce, and the panel
 * renders all server text as text, so knowing it gives an app nothing in the panel. `granted`: the origins the user let
 * server apps reach (core/apps/appNetwork.ts `panelCsp`); none, no network.
 */
export function panelHtml(webview: vscode.Webview, extensionUri: vscode.Uri, appNonce: string, granted?: AppCsp): string {
  const nonce = randomBytes(16).toString('base64');
  const asset = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  const csp = panelCsp({ cspSource: webview.cspSource, nonce, appNonce, granted });
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('dist', 'codicons', 'codicon.css')}">
<link rel="stylesheet" href="${asset('media', 'panel.css')}">
<title>Plangate</title>
</head>
<body>
<div id="root"><p>Loading…</p></div>
<script nonce="${nonce}" src="${asset('dist', 'webview.js')}"></script>
</body>
</html>`;
}

export function panelOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    enableFindWidget: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

/** A fresh nonce for a panel's server apps (see {@link panelHtml}). */
export function newAppNonce(): string {
  return randomBytes(16).toString('base64');
}
