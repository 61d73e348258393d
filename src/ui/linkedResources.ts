/**
 * Resources behind the `resource_link`s of results, opened in a read-only editor tab: the text in a virtual document of
 * the `plangate-resource:` scheme (a TextDocumentContentProvider: nothing is written to disk, nothing can be saved), an
 * image in a small webview tab that shows only that image (a CSP allowing nothing but `data:` images). The URI a server
 * named is read from that server only (core/engine/linkedResource.ts, on the ledger's record); it is never handed to
 * the operating system nor taken as a file path.
 */
import * as vscode from 'vscode';
import { describePart, resourceDocumentText, type ResourcePart } from '../core/base/resourceLink';
import { readLinkedResource } from '../core/engine/linkedResource';
import type { Workflow } from '../core/workflow/ledger';
import type { ServerRegistry } from '../mcp/registry';
import { visibleText } from '../shared/visibleText';

/** The scheme of the read-only documents that show a linked resource's text. */
export const RESOURCE_SCHEME = 'plangate-resource';
/** At most this many read resources are kept for their tabs (the oldest go first; its tab then says to open it again). */
const MAX_KEPT = 30;

export class LinkedResources implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private seq = 0;
  private readonly registration: vscode.Disposable;

  constructor(
    private readonly servers: Pick<ServerRegistry, 'get'>,
    private readonly workflow: Pick<Workflow, 'dispatch'>,
    private readonly log: Pick<vscode.LogOutputChannel, 'info' | 'warn'>,
  ) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(RESOURCE_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return (
      this.texts.get(uri.query) ??
      'This resource is no longer held by Plangate (the window reloaded, or many were opened since). Open its link again from the result.'
    );
  }

  /**
   * Reads `uri` from `server` (whose result linked it) and shows it in a tab. Resolves undefined when shown, else the
   * reason in words (the panel shows it beside the link).
   */
  async open(server: string, uri: string, name?: string): Promise<string | undefined> {
    const read = await readLinkedResource(
      {
        record: (event) => this.workflow.dispatch(event),
        read: async (s, u) => {
          const conn = this.servers.get(s);
          if (!conn) throw new Error(`it is not configured any more: check .vscode/mcp.json and the plangate.servers setting`);
          return conn.readLinkedResource(u);
        },
      },
      server,
      uri,
    );
    if (!read.ok) {
      this.log.warn(`linked resource: ${read.error}`);
      return read.error;
    }
    const title = tabTitle(name, uri);
    this.log.info(
      `linked resource ${uri} of server '${server}' read: ${read.parts.map((p) => p.kind + (p.kind === 'text' ? ` ${p.text.length} chars` : ` ${p.bytes} bytes`)).join(', ')}`,
    );
    const image = read.parts.length === 1 && read.parts[0].kind === 'image' ? read.parts[0] : undefined;
    if (image) {
      showImage(title, server, image);
      return undefined;
    }
    const key = `${++this.seq}`;
    this.texts.set(key, resourceDocumentText(read));
    for (const old of [...this.texts.keys()].slice(0, Math.max(0, this.texts.size - MAX_KEPT))) this.texts.delete(old);
    const docUri = vscode.Uri.from({ scheme: RESOURCE_SCHEME, path: `/${server.replace(/[/\\]/g, '_')}/${title}`, query: key });
    const doc = await vscode.workspace.openTextDocument(docUri);
    await vscode.window.showTextDocument(doc, { preview: true });
    return undefined;
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}

/** A tab title from the link's name (else the URI's last segment): visible characters only, no path separators. */
function tabTitle(name: string | undefined, uri: string): string {
  const raw =
    name?.trim() ||
    uri
      .replace(/[?#].*$/, '')
      .split('/')
      .filter(Boolean)
      .at(-1) ||
    'resource';
  return (
    visibleText(raw)
      .replace(/[/\\:*?"<>|]/g, '_')
      .slice(0, 80) || 'resource'
  );
}

function showImage(title: string, server: string, image: Extract<ResourcePart, { kind: 'image' }>): void {
  const panel = vscode.window.createWebviewPanel('plangate.resourceImage', title, vscode.ViewColumn.Active, {
    enableScripts: false,
    localResourceRoots: [],
  });
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const label = esc(`${visibleText(image.uri)} from server ${visibleText(server)} — ${describePart(image)}`);
  // Nothing but the image: no script, no style sheet, no other source (the base64 was checked: a raster type, bounded).
  panel.webview.html =
    `<!DOCTYPE html><html><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:;">` +
    `</head><body><p>${label}</p><img alt="${esc(title)}" src="data:${image.mimeType};base64,${image.base64}"></body></html>`;
}
