import * as vscode from 'vscode';
import { DisposableBase, Emitter } from '../core/base/lifecycle';
import { evaluate, type PolicyCall, type PolicyVerdict } from '../core/policy/evaluate';
import { lintPolicy, type PolicyCatalog } from '../core/policy/lint';
import { lineStarts, locate, parsePolicyText, parsePolicyValue, type ParsedPolicy, type PolicyProblem } from '../core/policy/parse';
import type { PolicyRule, PolicyRules } from '../core/policy/rules';
import type { ServerRegistry } from '../mcp/registry';
import { nodeRealPath } from '../node/realPath';
import { findNodeAtLocation, getNodeValue, parseTree, type Node } from 'jsonc-parser';
import { Settings } from './constants';
import type { ApprovalStore } from './approvals';

/** The workspace policy file, relative to the (first) workspace folder. */
export const POLICY_FILE = '.vscode/plangate-policy.json';

/**
 * The policy's two sources as VS Code holds them: the user's `plangate.policy` (user settings only: a workspace value
 * is ignored, it would let a cloned folder write the user's policy) and the workspace file `.vscode/plangate-policy.json`
 * (read only in a trusted workspace; watched). Problems of the file (and doubts: an unknown server, a tool pattern that
 * matches no listed tool, a rule that can never fire, a rule that would loosen the user's policy) go to the Problems
 * panel with line and column; so do the user's, on their place in the user settings file when it holds the value VS
 * Code reads (with a settings profile of its own it may not: then they go to the log). The door asks
 * {@link PolicySource.verdict}.
 */
export class PolicySource extends DisposableBase {
  private rules: PolicyRules = { user: [], workspace: [] };
  private readonly diagnostics = this._register(vscode.languages.createDiagnosticCollection('plangate-policy'));
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** The rules changed (settings, the file, trust): plans awaiting approval are judged again. */
  readonly onDidChange = this._onDidChange.event;
  private fileText: string | undefined;
  /** Where `plangate.policy` is in the user settings file, when the file holds the value VS Code reads (see read()). */
  private userPlace: { node: Node; lines: number[] } | undefined;
  private userParseProblems: PolicyProblem[] = [];
  private warnedLoosening = new Set<string>();
  private reloading: Promise<void> = Promise.resolve();

  constructor(
    private readonly registry: ServerRegistry,
    private readonly log: vscode.LogOutputChannel,
    /** The user settings file (settings.json), where the user's problems are shown; none: they go to the log. */
    private readonly userSettings?: vscode.Uri,
    /** The card's standing approvals (session, workspace): weighed with the user's rules. */
    private readonly approvals?: Pick<ApprovalStore, 'rules' | 'onDidChange'>,
  ) {
    super();
    if (approvals)
      this._register(
        approvals.onDidChange(() => {
          this.publish();
          this._onDidChange.fire();
        }),
      );
    const watcher = this._register(vscode.workspace.createFileSystemWatcher(`**/${POLICY_FILE}`));
    for (const on of [watcher.onDidCreate, watcher.onDidChange, watcher.onDidDelete]) this._register(on(() => this.reload()));
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${Settings.section}.${Settings.policy}`)) this.reload();
      }),
    );
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.reload()));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.reload()));
    // The catalog changed: problems that depend on it (unknown server, tool pattern) are checked again.
    this._register(registry.onDidChange(() => this.publish()));
    this.reload();
  }

  /** The workspace folder argument paths resolve against. */
  get workspaceRoot(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  /** The policy's verdict on a call now. */
  verdict(call: PolicyCall): PolicyVerdict {
    return evaluate(this.withApprovals(), call, { workspaceRoot: this.workspaceRoot, realPath: nodeRealPath });
  }

  /** The rules with the standing approvals. */
  private withApprovals(): PolicyRules {
    return this.approvals ? { ...this.rules, approvals: this.approvals.rules } : this.rules;
  }

  /** The user's rules as written in settings (for Always allow, which adds one). */
  userRuleIds(): string[] {
    return this.rules.user.map((r) => r.id);
  }

  /** The rules of each source as read now (the Approvals view lists their allows). */
  get current(): PolicyRules {
    return this.rules;
  }

  /** Removes the rule `id` from the user's `plangate.policy` (Revoke in the Approvals view); false when it is not there. */
  async removeUserRule(id: string): Promise<boolean> {
    const config = vscode.workspace.getConfiguration(Settings.section);
    const current = config.inspect<unknown>(Settings.policy)?.globalValue;
    if (!current || typeof current !== 'object' || Array.isArray(current)) return false;
    const base = current as Record<string, unknown>;
    const rules = Array.isArray(base.rules) ? base.rules : [];
    const kept = rules.filter((r) => !(r && typeof r === 'object' && (r as { id?: unknown }).id === id));
    if (kept.length === rules.length) return false;
    await config.update(Settings.policy, { ...base, rules: kept }, vscode.ConfigurationTarget.Global);
    this.reload();
    await this.reloading;
    return true;
  }

  /** Resolves once the sources are read (after construction or a change). */
  ready(): Promise<void> {
    return this.reloading;
  }

  /** Adds `rule` at the end of the user's `plangate.policy` (user settings) and reads the sources again. */
  async addUserRule(rule: PolicyRule): Promise<void> {
    const config = vscode.workspace.getConfiguration(Settings.section);
    const current = config.inspect<unknown>(Settings.policy)?.globalValue;
    const base = current && typeof current === 'object' && !Array.isArray(current) ? (current as Record<string, unknown>) : {};
    const rules = Array.isArray(base.rules) ? base.rules : [];
    await config.update(Settings.policy, { ...base, rules: [...rules, rule] }, vscode.ConfigurationTarget.Global);
    this.reload();
    await this.reloading;
  }

  /** Reads both sources again (queued: one read at a time). */
  reload(): void {
    this.reloading = this.reloading.then(() => this.read()).catch((err: unknown) => this.log.error(`Policy: ${String(err)}`));
  }

  private async read(): Promise<void> {
    const userValue = vscode.workspace.getConfiguration(Settings.section).inspect<unknown>(Settings.policy)?.globalValue;
    const user = parsePolicyValue(userValue, 'user');
    let workspace: ParsedPolicy = { rules: [], problems: [] };
    this.fileText = undefined;
    const folder = vscode.workspace.workspaceFolders?.[0];
    const file = folder && vscode.Uri.joinPath(folder.uri, POLICY_FILE);
    if (file && vscode.workspace.isTrusted) {
      try {
        this.fileText = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
        workspace = parsePolicyText(this.fileText, 'workspace');
      } catch {
        this.fileText = undefined; // no file: no workspace rules
      }
    } else if (file && !vscode.workspace.isTrusted) {
      this.log.info(`Policy: ${POLICY_FILE} is not read: the workspace is not trusted.`);
    }
    this.userPlace = await this.readUserSettings(userValue);
    const before = JSON.stringify(this.rules);
    this.rules = { user: user.rules, workspace: workspace.rules };
    this.userParseProblems = user.problems;
    this.publish(workspace.problems);
    if (JSON.stringify(this.rules) !== before) {
      this.log.info(`Policy: ${this.rules.user.length} rule(s) from your settings, ${this.rules.workspace.length} from ${POLICY_FILE}.`);
      this._onDidChange.fire();
    }
  }

  private parseProblems: PolicyProblem[] = [];

  /**
   * Where `plangate.policy` is in the user settings file, if it is the value VS Code reads (`value`); otherwise (no
   * file, a settings profile of its own, the file changed since) undefined, and the problems go to the log.
   */
  private async readUserSettings(value: unknown): Promise<{ node: Node; lines: number[] } | undefined> {
    if (!this.userSettings || value === undefined) return undefined;
    try {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(this.userSettings));
      const node = policyNode(text);
      return node && JSON.stringify(getNodeValue(node)) === JSON.stringify(value) ? { node, lines: lineStarts(text) } : undefined;
    } catch {
      return undefined;
    }
  }

  /** Puts the file's problems (parse problems, and the checks against the rules and the catalog) in the Problems panel. */
  private publish(parseProblems?: PolicyProblem[]): void {
    if (parseProblems) this.parseProblems = parseProblems;
    const folder = vscode.workspace.workspaceFolders?.[0];
    this.diagnostics.clear();
    const catalog: PolicyCatalog = {
      servers: this.registry.connections.map((c) => ({ name: c.name, tools: c.state === 'running' ? c.tools : undefined })),
    };
    const userProblems = [...this.userParseProblems, ...lintPolicy(this.withApprovals(), 'user', catalog)];
    const place = this.userPlace;
    if (this.userSettings && place) {
      this.diagnostics.set(
        this.userSettings,
        userProblems.map((p) => diagnostic(locate(p, place.node, place.lines), 'Plangate policy (plangate.policy)')),
      );
    } else for (const p of userProblems) this.log.warn(`Policy (setting plangate.policy): ${p.message}`);
    if (!folder || this.fileText === undefined) return;
    const tree = parseTree(this.fileText, [], { allowTrailingComma: true });
    const lines = lineStarts(this.fileText);
    const lint = lintPolicy(this.withApprovals(), 'workspace', catalog).map((p) => locate(p, tree, lines));
    const all = [...this.parseProblems, ...lint];
    this.diagnostics.set(
      vscode.Uri.joinPath(folder.uri, POLICY_FILE),
      all.map((p) => diagnostic(p, 'Plangate policy')),
    );
    const loosening = lint.filter((p) => /would loosen your own policy/.test(p.message) && !this.warnedLoosening.has(p.message));
    if (loosening.length) {
      for (const p of loosening) this.warnedLoosening.add(p.message);
      void vscode.window
        .showWarningMessage(
          `Plangate: the workspace policy (${POLICY_FILE}) would loosen your own policy (${loosening.map((p) => `rule '${p.ruleId}'`).join(', ')}). Plangate does not honour it there: it asks as your policy says.`,
          'Show Problems',
        )
        .then((choice) => (choice ? vscode.commands.executeCommand('workbench.actions.view.problems') : undefined));
    }
  }
}

/** The value node of `plangate.policy` in a settings file's text. */
function policyNode(settingsText: string): Node | undefined {
  const tree = parseTree(settingsText, [], { allowTrailingComma: true });
  return tree && findNodeAtLocation(tree, [`${Settings.section}.${Settings.policy}`]);
}

function diagnostic(p: PolicyProblem, source: string): vscode.Diagnostic {
  const r = p.range ?? { line: 0, column: 0, endLine: 0, endColumn: 1 };
  const d = new vscode.Diagnostic(
    new vscode.Range(r.line, r.column, r.endLine, r.endColumn),
    p.message,
    p.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
  );
  d.source = source;
  if (p.ruleId) d.code = p.ruleId;
  return d;
}
