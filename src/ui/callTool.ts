import * as vscode from 'vscode';
import type { CallOutcome, Gate } from '../core/engine/gate';
import type { Entrance } from '../core/plan/plan';
import { CallError } from '../mcp/connection';
import type { ServerRegistry } from '../mcp/registry';
import { validateArgs } from '../core/engine/validateArgs';
import { delayedProgress } from './delayedProgress';
import type { PanelItems } from './panel/panelItems';
import { followUpYes } from './followUp';
import { gateSettings } from './settings';
import type { CollectForms } from './collectForms';
import type { AppHost } from './appHost';
import { describeCollectError } from '../core/forms/submissions';
import { toolPickPlaceholder, toolPickRows, type PickServer } from '../core/present/toolPick';

const LAST_ARGS_KEY = 'plangate.lastArgs';

/**
 * Plangate: Call Tool… — pick a server and tool, fill the form generated from its input schema, call it, and
 * route the result: a plan to the plan panel, anything else to a result card.
 */
/** What the caller shows in the panel: Call Tool forms, result cards and plans. */
export type CallerPanel = Pick<PanelItems, 'showCallForm' | 'updateCallForm' | 'closeCallForm' | 'showResult' | 'showPlan'>;

/** A call from a surface: Call Tool's form, a follow-up's re-call. */
export interface ToolCallRequest {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  /** Default `manual` (the Call Tool form, which takes focus); others show their outcome without it. */
  entrance?: Entrance;
}

export class ToolCaller {
  constructor(
    private readonly registry: ServerRegistry,
    private readonly gate: Gate,
    private readonly panel: CallerPanel,
    private readonly memento: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
    /** Opens collect-mode forms (results of new_model_app / edit_model_app). */
    private readonly collect: Pick<CollectForms, 'open' | 'receive' | 'show'>,
    /** Server apps: a plain result of a tool with a `ui://` page shows that page (appHost.ts). */
    private readonly apps?: Pick<AppHost, 'pageFor' | 'show'>,
  ) {}

  /** The user answered Yes to a plan's follow-up question (see followUp.ts). */
  followUpYes(planId: string): Promise<void> {
    return followUpYes(this.gate, this, planId);
  }

  /** Calls in flight from Call Tool forms, by `server/tool`, for their Cancel button. */
  private readonly inFlight = new Map<string, AbortController>();

  /** Cancels the form's call of `tool` on `server` (the server is told); nothing when none is in flight. */
  cancel(server: string, tool: string): void {
    this.inFlight.get(`${server}/${tool}`)?.abort('Cancelled by the user');
  }

  /** Entry point of the command; `target` comes from the Servers view (a server or tool node). */
  async pickAndCall(target?: { server?: string; name?: string; tool?: string; kind?: string }): Promise<void> {
    let server = target?.kind === 'tool' ? target.server : target?.kind === 'server' ? target.name : undefined;
    let tool = target?.kind === 'tool' ? target.tool : undefined;
    if (!server || !tool) {
      const picked = await this.pickTool(server);
      if (!picked) return;
      ({ server, tool } = picked);
    }
    await this.openForm(server, tool);
  }

  /**
   * The tool pick. Servers still starting are listed as such and their tools fill in as they arrive (the pick is
   * rebuilt on every registry change); "no server configured" is said only when there is none.
   */
  private async pickTool(onlyServer?: string): Promise<{ server: string; tool: string } | undefined> {
    const servers = (): PickServer[] =>
      this.registry.connections
        .filter((c) => !onlyServer || c.name === onlyServer)
        .map((c) => ({ name: c.name, state: c.state, message: c.message, tools: c.tools }));
    if (servers().length === 0) {
      const open = 'Open mcp.json';
      const choice = await vscode.window.showWarningMessage(
        'Plangate: no MCP server is configured. Add one to .vscode/mcp.json or to the plangate.servers setting.',
        open,
      );
      if (choice === open) await vscode.commands.executeCommand('plangate.openMcpJson');
      return undefined;
    }
    type Item = vscode.QuickPickItem & { server?: string; tool?: string };
    const pick = vscode.window.createQuickPick<Item>();
    pick.title = 'Plangate: Call Tool';
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    // ignoreFocusOut: the panel's webview can take focus back a moment after the pick opens, which would close it.
    pick.ignoreFocusOut = true;
    const refresh = () => {
      const now = servers();
      const active = pick.activeItems[0];
      pick.items = toolPickRows(now).map((row): Item => {
        switch (row.kind) {
          case 'separator':
            return { label: row.label, kind: vscode.QuickPickItemKind.Separator };
          case 'status':
            return { label: row.label, detail: row.detail, alwaysShow: true };
          case 'tool':
            return { label: row.label, description: row.description, detail: row.detail, server: row.server, tool: row.tool };
        }
      });
      const again = active?.tool ? pick.items.find((i) => i.server === active.server && i.tool === active.tool) : undefined;
      if (again) pick.activeItems = [again];
      pick.placeholder = toolPickPlaceholder(now);
      pick.busy = now.some((s) => s.state === 'starting');
    };
    refresh();
    const changes = this.registry.onDidChange(refresh);
    return new Promise((resolve) => {
      let chosen: { server: string; tool: string } | undefined;
      pick.onDidAccept(() => {
        const item = pick.selectedItems[0];
        if (!item?.server || !item.tool) return; // a server's state line: not a choice
        chosen = { server: item.server, tool: item.tool };
        pick.hide();
      });
      pick.onDidHide(() => {
        changes.dispose();
        pick.dispose();
        resolve(chosen);
      });
      pick.show();
    });
  }

  /** Opens the form, or calls at once when the tool takes no arguments. */
  async openForm(server: string, tool: string): Promise<void> {
    const def = this.registry.get(server)?.tools.find((t) => t.name === tool);
    if (!def) {
      void vscode.window.showErrorMessage(
        `Plangate: server "${server}" does not offer a tool "${tool}" (any more). Refresh the Servers view.`,
      );
      return;
    }
    const props = (def.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
    if (!props || Object.keys(props).length === 0) {
      await this.call({ server, tool, args: {} });
      return;
    }
    this.panel.showCallForm({
      server,
      tool,
      title: def.title || tool,
      description: def.description,
      inputSchema: def.inputSchema,
      lastArgs: this.memento.get<Record<string, Record<string, unknown>>>(LAST_ARGS_KEY, {})[`${server}/${tool}`],
    });
  }

  /**
   * Validates, calls through the gate ({@link Gate.call}) with a cancellable progress notification, and shows the
   * outcome where it belongs. `entrance`: where the call comes from (default: the Call Tool form).
   */
  async call(request: ToolCallRequest): Promise<void> {
    const { server, tool, args, entrance = 'manual' } = request;
    const def = this.registry.get(server)?.tools.find((t) => t.name === tool);
    const problem = validateArgs(tool, def?.inputSchema, args);
    if (problem) throw new Error(problem);
    const all = this.memento.get<Record<string, Record<string, unknown>>>(LAST_ARGS_KEY, {});
    await this.memento.update(LAST_ARGS_KEY, { ...all, [`${server}/${tool}`]: args });
    this.panel.updateCallForm(server, tool, { busy: true, error: undefined });
    const started = Date.now();
    try {
      const controller = new AbortController();
      const key = `${server}/${tool}`;
      this.inFlight.set(key, controller);
      const progress = delayedProgress(`Plangate: calling ${tool} on ${server}`, () => controller.abort('Cancelled by the user'));
      let outcome: CallOutcome;
      try {
        outcome = await this.gate.call({
          server,
          tool,
          args,
          entrance,
          decision: { by: 'user', what: 'pressed Call in the Call Tool form, which showed this server, tool and arguments' },
          signal: controller.signal,
          timeoutMs: gateSettings().stepTimeoutMs,
          onProgress: (p) =>
            progress.report(
              p.message ?? (p.total ? `${p.progress}/${p.total}` : String(p.progress)),
              p.total ? (p.progress / p.total) * 100 : undefined,
            ),
        });
      } finally {
        progress.done();
        if (this.inFlight.get(key) === controller) this.inFlight.delete(key);
      }
      this.panel.closeCallForm(server, tool);
      this.show(outcome, { focus: entrance === 'manual' });
    } catch (err) {
      const message = err instanceof CallError || err instanceof Error ? err.message : String(err);
      this.panel.updateCallForm(server, tool, { busy: false, error: message });
      this.log.warn(`${server}/${tool} failed: ${message}`);
      this.panel.showResult({ server, tool, args, error: message, durationMs: Date.now() - started });
    }
  }

  /** Shows what a call through the gate came to where it belongs: a plan in the panel, a form, an app's page or a result card. */
  show(outcome: CallOutcome, options: { focus?: boolean } = {}): void {
    const { server, tool, args, result, received, durationMs } = outcome;
    const focus = options.focus ?? true;
    switch (received.kind) {
      case 'plan':
        this.panel.showPlan(received.planId, { focus });
        return;
      case 'invalid_plan':
        this.panel.showResult({ server, tool, args, result, durationMs, problems: received.problems }, { focus });
        return;
      case 'collect_form':
        if (received.classification.kind === 'collect_form') {
          const origin = { server, tool, args, entrance: 'manual' as const };
          const page = this.apps?.pageFor(server, tool, { form: true });
          if (page && result) {
            // The server's form app instead of the native form; the submission is the same, and so are Staged and Submit.
            const id = this.collect.receive(origin, received.classification.form);
            void this.apps!.show({ server, tool, args, result, durationMs }, page, {
              focus,
              submissionId: id,
              fallback: (note) => {
                this.collect.show(id, focus);
                void vscode.window.showInformationMessage(`Plangate: ${note} The native form is shown instead.`);
              },
            });
            return;
          }
          this.collect.open(origin, received.classification.form, { focus });
          return;
        }
        this.panel.showResult({ server, tool, args, result, durationMs }, { focus });
        return;
      case 'unrecorded':
        this.panel.showResult(
          {
            server,
            tool,
            args,
            result,
            durationMs,
            error: `The plan in this result could not be recorded (${received.reason}); nothing awaits approval.`,
          },
          { focus },
        );
        return;
      case 'collect_error':
        if (received.classification.kind === 'collect_error') {
          this.panel.showResult(
            { server, tool, args, result, durationMs, error: describeCollectError(received.classification.error, server, tool) },
            { focus },
          );
          return;
        }
        this.panel.showResult({ server, tool, args, result, durationMs }, { focus });
        return;
      default: {
        const page = this.apps?.pageFor(server, tool);
        if (page) void this.apps!.show({ server, tool, args, result, durationMs }, page, { focus });
        else this.panel.showResult({ server, tool, args, result, durationMs }, { focus });
      }
    }
  }
}
