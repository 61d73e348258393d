/**
 * Signing in to servers that ask for OAuth, in VS Code: registrations and tokens in SecretStorage (keyed by the
 * workspace and the server URL), the redirect back through a loopback listener made reachable with `asExternalUri`
 * (desktop: the port itself, or a forwarded one in a remote window; browser-hosted VS Code such as code-server: its
 * port proxy), the authorization page opened with `openExternal`, a notification the first time a server wants a
 * sign-in, and the Sign in / Sign out commands of the Servers view.
 */
import * as vscode from 'vscode';
import { checkExternalUrl } from '../core/base/externalUrl';
import type { OAuthSupport, SignInInteraction } from '../mcp/connection';
import { listenForRedirect } from '../mcp/oauth/loopback';
import type { ServerRegistry } from '../mcp/registry';
import { visibleText } from '../shared/visibleText';
import { Commands } from './constants';
import { openCheckedUrl } from './openUrl';
import type { ServerNode } from './serverRows';

/** The sign-in support the registry's connections use. */
export function oauthSupport(secrets: vscode.SecretStorage): OAuthSupport {
  const interaction: SignInInteraction = {
    async listen(preferredPort) {
      const receiver = await listenForRedirect({ preferredPort });
      try {
        const external = await vscode.env.asExternalUri(vscode.Uri.parse(receiver.redirectUrl));
        return {
          ...receiver,
          code: receiver.code.bind(receiver),
          close: receiver.close.bind(receiver),
          redirectUrl: external.toString(true),
        };
      } catch (err) {
        receiver.close();
        throw err;
      }
    },
    async open(url, server) {
      // The authorization URL comes from the server's metadata: http(s) only, never a scheme the system hands elsewhere.
      const checked = checkExternalUrl(url, `sign-in page of server "${visibleText(server)}"`);
      if (!checked.ok) throw new Error(`${checked.reason} Its sign-in metadata (authorization_endpoint) needs fixing.`);
      const opened = await openCheckedUrl(checked.url);
      if (!opened) throw new Error('the sign-in page was not opened');
    },
  };
  return {
    store: secrets,
    scope: `workspace:${(vscode.workspace.workspaceFile ?? vscode.workspace.workspaceFolders?.[0]?.uri)?.toString() ?? ''}`,
    clientName: `Plangate (${vscode.env.appName})`,
    interaction,
  };
}

/** The Sign in and Sign out commands, and the notification the first time each server asks for a sign-in. */
export function registerSignIn(registry: ServerRegistry, log: vscode.LogOutputChannel): vscode.Disposable[] {
  const notified = new Set<string>();
  const serverOf = (node?: ServerNode | string) => (typeof node === 'string' ? node : node?.kind === 'server' ? node.name : undefined);

  const signIn = async (name: string) => {
    const conn = registry.get(name);
    if (!conn) return;
    try {
      await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Plangate: signing in to ${name} — finish in the browser`,
          cancellable: true,
        },
        (_progress, token) => {
          token.onCancellationRequested(() => void conn.stop());
          return conn.signIn();
        },
      );
      void vscode.window.showInformationMessage(`Plangate: signed in to ${name}.`);
    } catch (err) {
      if (conn.state === 'stopped') return; // cancelled
      const message = err instanceof Error ? err.message : String(err);
      log.error(message);
      void vscode.window.showErrorMessage(`Plangate: ${message}`);
    }
  };

  return [
    vscode.commands.registerCommand(Commands.signIn, async (node?: ServerNode | string) => {
      const name =
        serverOf(node) ??
        (
          await vscode.window.showQuickPick(
            registry.connections.filter((c) => c.config.type !== 'stdio').map((c) => ({ label: c.name, description: c.state })),
            { title: 'Plangate: sign in to a server' },
          )
        )?.label;
      if (name) await signIn(name);
    }),
    vscode.commands.registerCommand(Commands.signOut, async (node?: ServerNode | string) => {
      const name = serverOf(node);
      const conn = name ? registry.get(name) : undefined;
      if (!conn) return;
      notified.add(conn.name); // signed out on purpose: no notification about it
      await conn.signOut();
      void vscode.window.showInformationMessage(`Plangate: signed out of ${conn.name}; its tokens and client registration are forgotten.`);
    }),
    registry.onDidChange(() => {
      for (const conn of registry.connections) {
        if (conn.state !== 'signInRequired' || notified.has(conn.name)) continue;
        notified.add(conn.name);
        void vscode.window.showInformationMessage(`Plangate: ${conn.name} needs you to sign in.`, 'Sign in').then((choice) => {
          if (choice === 'Sign in') void signIn(conn.name);
        });
      }
    }),
  ];
}
