/**
 * Which tools carry an MCP App (the `io.modelcontextprotocol/ui` extension, protocol 2026-01-26) and who may see or
 * call them. Everything read here is server data: a tool's `_meta` is checked field by field, never trusted whole.
 *
 * Pure: no vscode, no I/O.
 */

/** The extension's identifier, as clients declare it in `capabilities.extensions`. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The only resource type Plangate renders as an app. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** What Plangate declares in `initialize` so that servers send their app tools. */
export const APPS_CAPABILITY = { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } as const;

/** Who a tool is for: `model` (the agent and the user's tool lists), `app` (calls from the server's own app). */
export type AppAudience = 'model' | 'app';

/** The part of a tool definition these rules read (an MCP `Tool`). */
export interface AppToolLike {
  name: string;
  _meta?: unknown;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The longest `ui://` URI accepted (a longer one is not an app). */
const MAX_URI_LENGTH = 2048;

/**
 * The `ui://` resource a tool's results are shown with: `_meta.ui.resourceUri`, else the deprecated
 * `_meta["ui/resourceUri"]`. Undefined when the tool carries none, or one that is not a plain `ui://` URI.
 */
export function appResourceUri(tool: AppToolLike | undefined): string | undefined {
  const meta = tool?._meta;
  if (!isObj(meta)) return undefined;
  const ui = isObj(meta.ui) ? meta.ui : undefined;
  const uri = typeof ui?.resourceUri === 'string' ? ui.resourceUri : meta['ui/resourceUri'];
  if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH) return undefined;
  // No controls, spaces or quotes: the URI is shown to the user and sent back in resources/read.
  return /^ui:\/\/[^\s\p{Cc}"'<>\\]+$/u.test(uri) ? uri : undefined;
}

/**
 * A tool's audience (`_meta.ui.visibility`); both when absent or not a list of known words. An empty list, or one
 * naming only unknown audiences, is for nobody.
 */
export function toolAudience(tool: AppToolLike | undefined): ReadonlySet<AppAudience> {
  const meta = tool?._meta;
  const visibility = isObj(meta) && isObj(meta.ui) ? meta.ui.visibility : undefined;
  if (!Array.isArray(visibility)) return new Set(['model', 'app']);
  return new Set(visibility.filter((v): v is AppAudience => v === 'model' || v === 'app'));
}

/** Whether the agent and the user's tool lists (Call Tool's default list) show `tool`: not when it is for apps only. */
export function visibleToModel(tool: AppToolLike | undefined): boolean {
  return toolAudience(tool).has('model');
}

/** Whether a server's own app may call `tool`. */
export function callableByApp(tool: AppToolLike | undefined): boolean {
  return toolAudience(tool).has('app');
}

/**
 * `tool` as a gated server offers it to VS Code's agent: without its app (`_meta.ui.resourceUri` and the deprecated
 * `_meta["ui/resourceUri"]`). Plangate shows the app in its panel, where each of the app's calls is asked as an app's
 * call. A chat that hosted the app itself would send the app's calls through the gated server, where they would look
 * like the agent's own (which the policy may allow without asking); and a gated server offers no resources, so the
 * chat could not read the page anyway. The rest of `_meta.ui` (visibility, …) stays. The tool is returned as it is
 * when it carries no app.
 */
export function withoutAppUi<T extends AppToolLike>(tool: T): T {
  const meta = tool._meta;
  if (!isObj(meta) || (!('ui/resourceUri' in meta) && !(isObj(meta.ui) && 'resourceUri' in meta.ui))) return tool;
  const { ['ui/resourceUri']: _legacy, ui, ...rest } = meta;
  const { resourceUri: _uri, ...uiRest } = isObj(ui) ? ui : {};
  const keptUi = isObj(ui) && Object.keys(uiRest).length ? { ui: uiRest } : ui !== undefined && !isObj(ui) ? { ui } : {};
  return { ...tool, _meta: { ...rest, ...keptUi } };
}
