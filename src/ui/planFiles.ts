import * as vscode from 'vscode';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { computeChanges, WatchLog, type FileChange } from '../core/files/changes';
import { DisposableBase, Emitter } from '../core/base/lifecycle';
import type { Workflow } from '../core/workflow/ledger';
import { rootPlanId } from '../core/workflow/planTree';
import { predictedAfter, predictStepFiles, touchedPaths, type PredictedFile, type PredictPorts } from '../core/files/predict';
import type { PlanRecord } from '../core/workflow/workflow';
import type { ServerRegistry } from '../mcp/registry';
import type { Door } from '../core/engine/door';
import { previewSettings } from './settings';
import {
  checkpointDiskState,
  createCheckpoint,
  readCheckpoint,
  readCheckpointFile,
  revertFile,
  revertPlan,
  sealCheckpoint,
  type Checkpoint,
  type RevertResult,
} from '../node/checkpoint';
import { listWorkspaceFiles } from '../node/workspaceFiles';
import type { ChangeView, PredictedView } from '../shared/protocol';

const PREVIEW_SCHEME = 'plangate-preview';

interface Prediction {
  views: PredictedView[];
  files: (PredictedFile & { step: number })[];
}

interface Watch {
  log: WatchLog;
  watcher: vscode.Disposable;
}

/**
 * Touched files: before approval, what each step is predicted to write (from write-shaped arguments, or a dry-run
 * call of tools that offer one); before the first step, a plan-scoped checkpoint of every file the plan may touch;
 * while it runs, a watch on the workspace; after it, the actual changes (undeclared writes flagged); and revert.
 * Checkpoints live in the extension's storage, never in the workspace or git.
 */
export class PlanFiles extends DisposableBase {
  private readonly _onDidChange = this._register(new Emitter<string>());
  /** Fires with a (top-level) plan id when its predictions or changes changed. */
  readonly onDidChange = this._onDidChange.event;
  private readonly predictions = new Map<string, Prediction | 'pending'>();
  private readonly changes = new Map<string, ChangeView[] | 'pending'>();
  private readonly watches = new Map<string, Watch>();
  private readonly previews = new Map<string, string>();
  private readonly previewChanged = this._register(new vscode.EventEmitter<vscode.Uri>());

  constructor(
    private readonly storageDir: string,
    private readonly registry: ServerRegistry,
    private readonly workflow: Workflow,
    private readonly log: vscode.LogOutputChannel,
    private readonly stepTimeoutMs: () => number,
    /** The one door: dry-run previews go through it, to the step's resolved server only. */
    private readonly door: Door,
  ) {
    super();
    this._register(
      vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, {
        onDidChange: this.previewChanged.event,
        provideTextDocumentContent: (uri) => this.previews.get(uri.toString()) ?? '',
      }),
    );
    this._register(
      workflow.onDidChange(({ event }) => {
        if (!('planId' in event)) return;
        const root = rootPlanId(workflow.state, event.planId);
        // A nested plan has its own checkpoint and watch (taken before its first step), sealed when it stops running.
        for (const id of new Set([event.planId, root])) {
          const plan = workflow.state.plans[id];
          if (plan && plan.phase !== 'executing' && this.watches.has(id)) void this.finishRun(id);
        }
        if (event.type === 'reverted') {
          this.changes.delete(root);
          void this.loadChanges(root);
        }
      }),
    );
  }

  /** The workspace folder and its real path (servers report real paths). */
  private roots(): { root: string; roots: string[] } | undefined {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== 'file') return undefined;
    const root = folder.uri.fsPath;
    let real = root;
    try {
      real = realpathSync(root);
    } catch {
      /* keep the configured path */
    }
    return { root, roots: real === root ? [root] : [root, real] };
  }

  /**
   * The plan's predicted file changes; undefined while predicting. A memoised lazy load: the first ask starts the
   * prediction (dry runs included) and fires onDidChange when it is done, so only plans someone looks at — the
   * panel's snapshot, including plans restored after a reload — are predicted.
   */
  predicted(planId: string): PredictedView[] | undefined {
    const p = this.predictions.get(planId);
    if (p === undefined) void this.predict(planId);
    return p && p !== 'pending' ? p.views : undefined;
  }

  changed(planId: string): ChangeView[] | undefined {
    const c = this.changes.get(planId);
    if (c === undefined) void this.loadChanges(planId);
    return c && c !== 'pending' ? c : undefined;
  }

  /**
   * The plan's changed files once its run has been sealed (for the agent's summary): waits up to `waitMs` for the
   * watcher to settle and the checkpoint to be compared; undefined when there is no checkpoint.
   */
  async settledChanges(planId: string, waitMs = 5000): Promise<ChangeView[] | undefined> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const c = this.watches.has(planId) ? 'pending' : this.changes.get(planId);
      if (Array.isArray(c)) return c;
      if (c === undefined) await this.loadChanges(planId);
      if (Array.isArray(this.changes.get(planId)) || Date.now() > deadline) {
        const done = this.changes.get(planId);
        return Array.isArray(done) ? done : undefined;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * Predicts each step's file changes: from write-shaped arguments, or a dry run (nothing is written) where the door
   * clears it by itself — the policy allows the call outright and the step runs on the plan's own server. A step whose
   * dry run waits for the user shows a Preview button ({@link previewStep}).
   */
  private async predict(planId: string): Promise<void> {
    const plan = this.workflow.state.plans[planId];
    const ports = this.ports();
    // Not memoised until the steps' servers are resolved: a dry run goes only to the server the step resolved on.
    if (!plan || plan.phase !== 'awaiting_approval' || !ports || plan.resolvedAt === undefined) return;
    this.predictions.set(planId, 'pending');
    const out: Prediction = { views: [], files: [] };
    for (const step of plan.steps) {
      const one = await predictStepFiles(planId, step, ports);
      out.views.push(...one.views);
      out.files.push(...one.files);
    }
    this.predictions.set(planId, out);
    this._onDidChange.fire(planId);
  }

  /**
   * The user pressed step `step`'s Preview: its dry run goes through the door as the user's (the single-call card asks
   * where the policy asks; a deny sends nothing), and its predictions replace the step's note. Returns an error in words.
   */
  async previewStep(planId: string, step: number): Promise<string | undefined> {
    const plan = this.workflow.state.plans[planId];
    const record = plan?.steps[step];
    const ports = this.ports();
    const before = this.predictions.get(planId);
    if (!plan || !record || plan.phase !== 'awaiting_approval' || !ports)
      return 'Only a step of a plan awaiting approval can be previewed.';
    if (!before || before === 'pending' || !before.views.some((v) => v.step === step && v.press))
      return `Step ${step + 1} has no preview waiting for you.`;
    const one = await predictStepFiles(planId, record, ports, true);
    const now = this.predictions.get(planId);
    if (!now || now === 'pending') return undefined;
    // Keep the steps' order: the pressed step's entries go where its note was.
    const at = now.views.findIndex((v) => v.step === step);
    const views = now.views.filter((v) => v.step !== step);
    views.splice(at < 0 ? views.length : at, 0, ...one.views);
    this.predictions.set(planId, { views, files: [...now.files.filter((f) => f.step !== step), ...one.files] });
    this._onDidChange.fire(planId);
    return undefined;
  }

  /** What predicting needs from the extension, or undefined without a workspace folder. */
  private ports(): PredictPorts | undefined {
    const where = this.roots();
    if (!where) return undefined;
    const settings = previewSettings();
    return {
      roots: where.roots,
      tool: (server, tool) => this.registry.get(server)?.tools.find((t) => t.name === tool),
      exists: (rel) => existsSync(path.join(where.root, rel)),
      dryRun: settings.dryRun,
      allowCrossServer: settings.allowCrossServer,
      clearance: (planId, step, server, tool, args) => this.door.previewClearance(planId, step, server, tool, args),
      send: (call) => this.door.call(call, { timeoutMs: this.stepTimeoutMs() }),
      log: (line) => this.log.info(line),
    };
  }

  /** Opens predicted change `index` of the plan as a diff of the file now against the predicted result. */
  async openPredicted(planId: string, index: number): Promise<void> {
    const p = this.predictions.get(planId);
    const where = this.roots();
    const view = p && p !== 'pending' ? p.views[index] : undefined;
    const file = view && p !== 'pending' ? p?.files.find((f) => f.step === view.step && f.path === view.path) : undefined;
    if (!view || !file || !where) return;
    const abs = file.inside ? path.join(where.root, file.path) : file.path;
    const current = file.inside && existsSync(abs) ? readFileSync(abs, 'utf8') : undefined;
    const after = predictedAfter(file, current);
    if ('error' in after) {
      void vscode.window.showWarningMessage(`Plangate: ${after.error}`);
      return;
    }
    const left = this.preview(`${planId}/${index}/before/${file.path}`, current ?? '');
    const right = this.preview(`${planId}/${index}/after/${file.path}`, after.text);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${file.path} (now ↔ predicted by step ${view.step + 1})`, {
      preview: true,
      preserveFocus: true,
      viewColumn: vscode.ViewColumn.Beside,
    });
  }

  private preview(key: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${key}` });
    this.previews.set(uri.toString(), text);
    this.previewChanged.fire(uri);
    return uri;
  }

  /** The gate's beforeRun hook: checkpoints every file the plan may touch, then watches the workspace. */
  async beforeRun(plan: PlanRecord): Promise<void> {
    const where = this.roots();
    if (!where) return;
    const globs = plan.plan.safety?.touches_files ?? [];
    const matched = globs.length ? (await listWorkspaceFiles(where.root, globs, { maxResults: 10_000 })).files : [];
    const p = this.predictions.get(plan.id);
    const predicted = p && p !== 'pending' ? p.files : [];
    const paths = touchedPaths(
      matched,
      plan.steps.map((s) => s.call),
      predicted,
      where.roots,
    );
    const checkpoint = await createCheckpoint(this.storageDir, plan.id, where.root, paths);
    const skipped = checkpoint.entries.filter((e) => e.note);
    this.log.info(`Checkpoint of plan ${plan.id.slice(0, 8)}: ${checkpoint.entries.length} file(s) recorded before the run`);
    for (const e of skipped) this.log.warn(`Checkpoint: ${e.note}`);
    if (!this.watches.has(plan.id)) {
      const log = new WatchLog();
      const folder = vscode.workspace.workspaceFolders![0];
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '**/*'));
      const rel = (uri: vscode.Uri) => {
        const r = path.relative(where.root, uri.fsPath);
        return r && !r.startsWith('..') && !path.isAbsolute(r) ? r.split(path.sep).join('/') : undefined;
      };
      watcher.onDidCreate((u) => log.record(rel(u), 'created'));
      watcher.onDidChange((u) => log.record(rel(u), 'changed'));
      watcher.onDidDelete((u) => log.record(rel(u), 'deleted'));
      this.watches.set(plan.id, { log, watcher });
    }
    this.changes.delete(plan.id);
  }

  /** The run ended (done, blocked, stopped, cancelled): seal the checkpoint and list the actual changes. */
  private async finishRun(planId: string): Promise<void> {
    const watch = this.watches.get(planId);
    if (!watch) return;
    this.watches.delete(planId);
    // File events arrive a little after the writes; give the watcher a moment before sealing.
    await new Promise((r) => setTimeout(r, 300));
    watch.watcher.dispose();
    const checkpoint = await readCheckpoint(this.storageDir, planId);
    const plan = this.workflow.state.plans[planId];
    if (!checkpoint || !plan) return;
    const log = await this.effectiveLog(checkpoint, watch.log, plan.plan.safety?.touches_files ?? []);
    await sealCheckpoint(checkpoint, log.seenPaths, { created: log.createdPaths });
    await this.loadChanges(planId, log);
  }

  /**
   * The watcher's events made exact: a created folder stands for the files in it (the watcher may report only the
   * folder), folders themselves are not changes, and a file matching the plan's globs now that the checkpoint did
   * not hold (it held every match before the run) was created by the plan even if no event for it arrived.
   */
  private async effectiveLog(checkpoint: Checkpoint, seen: WatchLog, globs: readonly string[]): Promise<WatchLog> {
    const root = checkpoint.workspaceRoot;
    const out = new WatchLog();
    const known = new Set(checkpoint.entries.map((e) => e.path));
    for (const event of seen.watched) {
      const abs = path.join(root, event.path);
      let isDir = false;
      try {
        isDir = statSync(abs).isDirectory();
      } catch {
        /* gone: a file (or folder) the plan deleted */
      }
      if (!isDir) {
        out.record(event.path, event.kind);
        continue;
      }
      if (event.kind === 'created')
        for (const file of filesBelow(abs, 2000)) out.record(path.relative(root, file).split(path.sep).join('/'), 'created');
    }
    if (globs.length) {
      const now = await listWorkspaceFiles(root, globs, { maxResults: 10_000 });
      const recorded = new Set(out.seenPaths);
      for (const file of now.files) if (!known.has(file) && !recorded.has(file)) out.record(file, 'created');
    }
    return out;
  }

  /** Computes the actual changes of a plan from its (sealed) checkpoint and the disk; works after a reload too. */
  private async loadChanges(planId: string, log?: WatchLog): Promise<void> {
    const plan = this.workflow.state.plans[planId];
    if (!plan || plan.phase === 'executing' || plan.approvedAt === undefined) return;
    this.changes.set(planId, 'pending');
    const checkpoint = await readCheckpoint(this.storageDir, planId).catch(() => undefined);
    if (!checkpoint) {
      this.changes.delete(planId);
      return;
    }
    const disk = await checkpointDiskState(checkpoint, log?.seenPaths ?? []);
    const list: FileChange[] = computeChanges({
      entries: checkpoint.entries,
      disk,
      watched: log?.watched,
      globs: plan.plan.safety?.touches_files,
      writesCode: plan.plan.safety?.writes_code,
    });
    this.changes.set(
      planId,
      list.map((c) => ({ ...c })),
    );
    this._onDidChange.fire(planId);
  }

  /** Opens an actual change as a diff of the checkpoint (before the plan) against the file on disk now. */
  async openChange(planId: string, file: string): Promise<void> {
    const checkpoint = await readCheckpoint(this.storageDir, planId);
    const where = this.roots();
    if (!checkpoint || !where) return;
    const before = await readCheckpointFile(checkpoint, file);
    const left = this.preview(`${planId}/checkpoint/${file}`, before ? before.toString('utf8') : '');
    const abs = path.join(checkpoint.workspaceRoot, file);
    const right = existsSync(abs) ? vscode.Uri.file(abs) : this.preview(`${planId}/deleted/${file}`, '');
    await vscode.commands.executeCommand('vscode.diff', left, right, `${file} (before the plan ↔ now)`, {
      preview: true,
      preserveFocus: true,
      viewColumn: vscode.ViewColumn.Beside,
    });
  }

  /**
   * Reverts one file or the whole plan after the user confirms; a file the user changed after the plan is not
   * overwritten unless they say so (they are offered its diff first). Returns the reverted paths.
   */
  async revert(planId: string, file?: string): Promise<string[]> {
    const checkpoint = await readCheckpoint(this.storageDir, planId);
    if (!checkpoint) throw new Error('This plan has no checkpoint, so there is nothing to revert to.');
    const preview = file ? [await revertFile(checkpoint, file, { dryRun: true })] : await revertPlan(checkpoint, { dryRun: true });
    const todo = preview.filter((r) => !(r.ok && r.action === 'unchanged'));
    if (todo.length === 0) {
      void vscode.window.showInformationMessage('Plangate: nothing to revert — the files already match the checkpoint.');
      return [];
    }
    const conflicts = todo.filter((r): r is Extract<RevertResult, { conflict: string }> => !r.ok && 'conflict' in r);
    const errors = todo.filter((r): r is Extract<RevertResult, { error: string }> => !r.ok && 'error' in r);
    const describe = todo
      .map(
        (r) =>
          `• ${r.path}${r.ok ? (r.action === 'removed' ? ' (remove: the plan created it)' : ' (restore)') : 'conflict' in r ? ' (changed after the plan!)' : ` (cannot: ${r.error})`}`,
      )
      .join('\n');
    const go = await vscode.window.showWarningMessage(
      file ? `Revert ${file} to how it was before the plan?` : `Revert the plan's changes to ${todo.length} file(s)?`,
      { modal: true, detail: describe },
      'Revert',
    );
    if (go !== 'Revert') return [];
    let force = false;
    let only: string[] | undefined;
    if (conflicts.length) {
      const others = todo.filter((r) => !conflicts.includes(r as never)).map((r) => r.path);
      const choice = await vscode.window.showWarningMessage(
        `${conflicts.length} file(s) changed after the plan ran: ${conflicts.map((c) => c.path).join(', ')}. Reverting would overwrite those edits.`,
        { modal: true },
        'Open Diff',
        ...(others.length ? ['Revert the Others'] : []),
        'Revert Anyway',
      );
      if (choice === 'Open Diff') {
        await this.openChange(planId, conflicts[0].path);
        return [];
      }
      if (choice === 'Revert the Others') only = others;
      else if (choice === 'Revert Anyway') force = true;
      else return [];
    }
    const results = file ? [await revertFile(checkpoint, file, { force })] : await revertPlan(checkpoint, { force, paths: only });
    const done = results.filter((r) => r.ok && r.action !== 'unchanged').map((r) => r.path);
    const failed = results.filter((r) => !r.ok);
    if (done.length) this.workflow.dispatch({ type: 'reverted', at: Date.now(), planId, files: done });
    if (failed.length) {
      void vscode.window.showWarningMessage(
        `Plangate: ${failed.length} file(s) were not reverted: ${failed.map((r) => `${r.path}: ${'conflict' in r ? r.message : 'error' in r ? r.error : ''}`).join('; ')}`,
      );
    }
    if (errors.length === 0 && failed.length === 0) void vscode.window.showInformationMessage(`Plangate: reverted ${done.length} file(s).`);
    this.changes.delete(planId);
    await this.loadChanges(planId);
    return done;
  }

  override dispose(): void {
    for (const w of this.watches.values()) w.watcher.dispose();
    this.watches.clear();
    super.dispose();
  }
}

/** Files below a folder (not following links), at most `max`. */
function filesBelow(dir: string, max: number): string[] {
  const out: string[] = [];
  const queue = [dir];
  while (queue.length && out.length < max) {
    const current = queue.shift()!;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const full = path.join(current, e.name);
      if (e.isDirectory()) queue.push(full);
      else if (e.isFile()) out.push(full);
    }
  }
  return out.slice(0, max);
}
