/** The plan panel protocol, results: a tool's plain result as a result card, and the resource links results carry. */
import type { AppNetworkView, AppSlotView } from './apps';

/** A `resource_link` of a result, checked (core/base/resourceLink.ts): `server` is the one whose result named it. */
export interface ResourceLinkView {
  server: string;
  uri: string;
  name: string;
  mimeType?: string;
}

/** A tool's plain result, shown as a result card. */
export interface ResultView {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  /** The MCP `CallToolResult` as the server sent it (untrusted). */
  result?: { content?: unknown[]; structuredContent?: unknown; isError?: boolean };
  /** The call failed before a result came back (timeout, connection, cancelled). */
  error?: string;
  durationMs?: number;
  /** The result looked like a plan but is not a valid one: the problems, by JSON path. */
  problems?: { path: string; message: string }[];
  /** The server's app shows this result (below the card). */
  app?: AppSlotView;
  /** Why the server's app is not shown (its page failed to load, has the wrong type, or is too large). */
  appNote?: string;
  /**
   * The collect-mode submission this app is the form of (a form app): the panel says the server's app is shown and
   * offers Plangate's own form instead (`switchForm`).
   */
  formOf?: string;
  /**
   * The server's app (this `ui://` page) showed this result before the window reloaded and is not running now: the
   * panel offers Reopen app (`reopenApp`). Plangate reopens it by itself once its server lists the tool again.
   */
  reopen?: string;
  /** The server's app asks to reach network origins, or declared some Plangate refuses: the notice (appNetwork). */
  network?: AppNetworkView;
}
