/**
 * The touched-files engine, beside the gate: before approval, what each step of a plan is predicted to write (from
 * write-shaped arguments, or a dry run through the door where the door clears it by itself); before the first step,
 * a plan-scoped checkpoint of every file the plan may touch (the gate's `beforeRun`), and a watch on the workspace
 * while it runs; when the run stops, the checkpoint sealed and the actual changes listed (undeclared writes flagged);
 * and revert.
 *
 * Pure of VS Code and Node: the workspace folder, its files, the checkpoint store, the watcher and time are ports
 * ({@link FilesEngineOptions}). The extension gives VS Code's watcher (ui/planFiles.ts), the CLI Node's; both the
 * Node file system and checkpoint store (node/planFilesPorts.ts). What the user sees of it — diff editors, the
 * questions before a revert — stays with its host (ui/planFiles.ts, cli/revertCommand.ts).
 */
import { DisposableBase, Emitter, type Disposable } from '../base/lifecycle';
import type { Door } from '../engine/door';
import type { Workflow } from '../workflow/ledger';
import { rootPlanId } from '../workflow/planTree';
import type { PlanRecord } from '../workflow/workflow';
import type { ChangeView, PredictedView } from '../../shared/protocol/files';
import { computeChanges, WatchLog, type DiskState, type WatchKind } from './changes';
import type { Checkpoint, RevertOptions, RevertResult } from './checkpoint';
import { predictedAfter, predictStepFiles, touchedPaths, type PredictedFile, type PredictPorts, type ToolDescription } from './predict';

/** The workspace folder the plan's files are relative to, with its aliases (its real path: servers report real paths). */
export interface WorkspaceFolder {
  /** Absolute. */
  root: string;
  /** `root` and, when it differs, its real path (see predict.ts `toWorkspacePath`). */
  roots: readonly string[];
}

/** Reading the workspace (workspace-relative paths with `/`). */
export interface WorkspaceDisk {
  exists(root: string, path: string): Promise<boolean>;
  /** The file's text (UTF-8); undefined when it does not exist or cannot be read. */
  readText(root: string, path: string): Promise<string | undefined>;
  /** The files matching the plan's `touches_files` globs (core/base/globs.ts semantics), sorted. */
  matching(root: string, globs: readonly string[]): Promise<string[]>;
  /** The files below `path` (at most `max`, links not followed) when it is a folder; undefined when it is not one. */
  filesIfFolder(root: string, path: string, max: number): Promise<string[] | undefined>;
  /**
   * When `path` (a file or folder, `""` the root; links not followed) last changed, by the disk's clock in ms: its
   * content or its name (the later of its modification and status-change times); undefined when it does not exist.
   */
  changedAt(root: string, path: string): Promise<number | undefined>;
}

/** Where checkpoints are kept (node/checkpoint.ts under a storage folder). */
export interface CheckpointStore {
  /** Takes (or extends) the plan's checkpoint of `paths`; rejects when the store cannot be written. */
  create(planId: string, root: string, paths: readonly string[]): Promise<Checkpoint>;
  /** The plan's checkpoint; undefined when it has none (or it is damaged). */
  read(planId: string): Promise<Checkpoint | undefined>;
  /**
   * Records what the plan left (see node/checkpoint.ts `sealCheckpoint`). `late`: files added after the checkpoint
   * was sealed (events that came late); the entries sealed already keep what they recorded the plan left.
   */
  seal(checkpoint: Checkpoint, seen: readonly string[], created: readonly string[], late?: boolean): Promise<void>;
  /** The state on disk now of the checkpoint's paths and `extra`. */
  diskState(checkpoint: Checkpoint, extra: readonly string[]): Promise<DiskState>;
  /** The bytes a file had before the plan; undefined when it did not exist or was not copied. */
  readFile(checkpoint: Checkpoint, path: string): Promise<Uint8Array | undefined>;
  revertFile(checkpoint: Checkpoint, path: string, options: RevertOptions): Promise<RevertResult>;
  revertPlan(checkpoint: Checkpoint, options: RevertOptions & { paths?: readonly string[] }): Promise<RevertResult[]>;
}

/** Watches the workspace while a plan runs: `record` gets workspace-relative paths (undefined for a path outside). */
export interface FileWatcher {
  watch(folder: WorkspaceFolder, record: (path: string | undefined, kind: WatchKind) => void): Disposable;
}

/** Time and waits (a fake clock in tests). */
export interface FilesClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** The system clock. */
export const filesSystemClock: FilesClock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

/** What dry-run previews need: the door they go through, the tools as listed, the settings. */
export interface PreviewPorts {
  door: Pick<Door, 'previewClearance' | 'call'>;
  tool: (server: string, tool: string) => ToolDescription | undefined;
  /** `plangate.previewWithDryRun`, `plangate.allowCrossServerSteps`; read at each prediction. */
  settings: () => { dryRun: boolean; allowCrossServer: boolean };
  /** The per-call timeout (the step timeout setting). */
  timeoutMs: () => number;
}

export interface FilesEngineOptions {
  workflow: Workflow;
  /** The workspace folder now; undefined when none is open (then nothing is predicted, checkpointed or watched). */
  folder: () => WorkspaceFolder | undefined;
  disk: WorkspaceDisk;
  checkpoints: CheckpointStore;
  /** Without one, only the checkpoint's paths and the globs' matches are compared after the run. */
  watcher?: FileWatcher;
  clock?: FilesClock;
  /** Without them nothing is predicted before approval (the CLI shows no diffs). */
  previews?: PreviewPorts;
  log?: (level: 'info' | 'warn', line: string) => void;
  /** How long the watcher is given after a run stops before the checkpoint is sealed (file events arrive late). */
  settleMs?: number;
  /**
   * How long the watcher stays on after the checkpoint is sealed, for events later still (a loaded machine's watcher
   * can be seconds behind): a file whose last change the disk dates before the run stopped is added to the list then.
   */
  lateMs?: number;
}

/** How long to gather late events before looking at them together. */
const LATE_BATCH_MS = 100;

/** A run being watched (by plan id), until its late window ends. */
interface Watch {
  log: WatchLog;
  watcher: Disposable | undefined;
  /** The run stopped and its changes are being listed. */
  sealing?: boolean;
  /** Once sealed: when the run stopped (the engine's clock), and the events that came since, not yet looked at. */
  late?: { stoppedAt: number; events: WatchLog; looking: boolean; ended: boolean };
}

interface Prediction {
  views: PredictedView[];
  files: (PredictedFile & { step: number })[];
}

/** A predicted change as a diff: the file now, and as the step would leave it. */
export interface PredictedDiff {
  path: string;
  step: number;
  before: string;
  after: string;
}

/** An actual change as a diff: the file before the plan, and whether it exists now (the host shows the file itself). */
export interface ChangeDiff {
  root: string;
  path: string;
  before: string;
  exists: boolean;
}

/** What a revert did: the files put back, and those left as they are (conflicts and errors, in words). */
export interface RevertOutcome {
  done: string[];
  failed: Extract<RevertResult, { ok: false }>[];
}

export class FilesEngine extends DisposableBase {
  private readonly _onDidChange = this._register(new Emitter<string>());
  /** Fires with a (top-level) plan id when its predictions or changes changed. */
  readonly onDidChange = this._onDidChange.event;
  private readonly predictions = new Map<string, Prediction | 'pending'>();
  private readonly changes = new Map<string, ChangeView[] | 'pending'>();
  /** Runs being watched, by plan id; kept until the run's changes are listed (`sealing` once it stopped). */
  private readonly watches = new Map<string, Watch>();
  /** Sealed runs whose watcher is still on for late events (see `lateMs`), by plan id. */
  private readonly lateWatches = new Map<string, Watch>();
  private readonly clock: FilesClock;
  private readonly workflow: Workflow;
  private isDisposed = false;

  constructor(private readonly options: FilesEngineOptions) {
    super();
    this.clock = options.clock ?? filesSystemClock;
    const workflow = (this.workflow = options.workflow);
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
          // A revert's own writes are not the plan's: the late window ends.
          this.endLate(root);
          this.changes.delete(root);
          void this.loadChanges(root);
        }
      }),
    );
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

  /** The plan's actual changes once its run stopped; undefined while they are computed (or there is no checkpoint). */
  changed(planId: string): ChangeView[] | undefined {
    const c = this.changes.get(planId);
    if (c === undefined) void this.loadChanges(planId);
    return c && c !== 'pending' ? c : undefined;
  }

  /**
   * The plan's changed files once its run has been sealed (for the agent's summary, the CLI's list): waits up to
   * `waitMs` for the watcher to settle and the checkpoint to be compared; undefined when there is no checkpoint.
   */
  async settledChanges(planId: string, waitMs = 5000): Promise<ChangeView[] | undefined> {
    const deadline = this.clock.now() + waitMs;
    for (;;) {
      const c = this.watches.has(planId) ? 'pending' : this.changes.get(planId);
      if (Array.isArray(c)) return c;
      if (c === undefined) await this.loadChanges(planId);
      if (Array.isArray(this.changes.get(planId)) || this.clock.now() > deadline) {
        const done = this.changes.get(planId);
        return Array.isArray(done) ? done : undefined;
      }
      await this.clock.sleep(100);
    }
  }

  /** The plan's checkpoint, as its store holds it; undefined when it has none. */
  checkpoint(planId: string): Promise<Checkpoint | undefined> {
    return this.options.checkpoints.read(planId).catch(() => undefined);
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

  /** What predicting needs, or undefined without a workspace folder or preview ports. */
  private ports(): PredictPorts | undefined {
    const where = this.options.folder();
    const previews = this.options.previews;
    if (!where || !previews) return undefined;
    const settings = previews.settings();
    return {
      roots: where.roots,
      tool: previews.tool,
      exists: (rel) => this.options.disk.exists(where.root, rel),
      dryRun: settings.dryRun,
      allowCrossServer: settings.allowCrossServer,
      clearance: (planId, step, server, tool, args) => previews.door.previewClearance(planId, step, server, tool, args),
      send: (call) => previews.door.call(call, { timeoutMs: previews.timeoutMs() }),
      log: (line) => this.options.log?.('info', line),
    };
  }

  /** Predicted change `index` of the plan as a diff (the file now ↔ as the step would leave it), or why it cannot be shown. */
  async predictedDiff(planId: string, index: number): Promise<PredictedDiff | { error: string } | undefined> {
    const p = this.predictions.get(planId);
    const where = this.options.folder();
    const view = p && p !== 'pending' ? p.views[index] : undefined;
    const file = view && p && p !== 'pending' ? p.files.find((f) => f.step === view.step && f.path === view.path) : undefined;
    if (!view || !file || !where) return undefined;
    const current = file.inside ? await this.options.disk.readText(where.root, file.path) : undefined;
    const after = predictedAfter(file, current);
    if ('error' in after) return after;
    return { path: file.path, step: view.step, before: current ?? '', after: after.text };
  }

  /** The gate's beforeRun hook: checkpoints every file the plan may touch, then watches the workspace. */
  async beforeRun(plan: PlanRecord): Promise<void> {
    const where = this.options.folder();
    if (!where) return;
    const globs = plan.plan.safety?.touches_files ?? [];
    const matched = globs.length ? await this.options.disk.matching(where.root, globs) : [];
    const p = this.predictions.get(plan.id);
    const predicted = p && p !== 'pending' ? p.files : [];
    const paths = touchedPaths(
      matched,
      plan.steps.map((s) => s.call),
      predicted,
      where.roots,
    );
    const checkpoint = await this.options.checkpoints.create(plan.id, where.root, paths);
    this.options.log?.('info', `Checkpoint of plan ${plan.id.slice(0, 8)}: ${checkpoint.entries.length} file(s) recorded before the run`);
    for (const e of checkpoint.entries) if (e.note) this.options.log?.('warn', `Checkpoint: ${e.note}`);
    if (!this.watches.has(plan.id)) {
      // A run again (a retry): the last run's late window ends, this run's watch sees from here.
      this.endLate(plan.id);
      const watch: Watch = { log: new WatchLog(), watcher: undefined };
      watch.watcher = this.options.watcher?.watch(where, (path, kind) => this.heard(plan.id, watch, path, kind));
      this.watches.set(plan.id, watch);
    }
    this.changes.delete(plan.id);
  }

  /** The run ended (done, blocked, stopped, cancelled): seal the checkpoint and list the actual changes. */
  private async finishRun(planId: string): Promise<void> {
    const watch = this.watches.get(planId);
    if (!watch || watch.sealing) return;
    // Until the changes are listed, settledChanges waits: a list made without the watcher's events would miss files.
    watch.sealing = true;
    const stoppedAt = this.clock.now();
    let sealed = false;
    try {
      // File events arrive a little after the writes; give the watcher a moment before sealing.
      if (watch.watcher) await this.clock.sleep(this.options.settleMs ?? 300);
      // From here on the watcher's events are late ones, looked at on their own once the checkpoint is sealed.
      watch.late = { stoppedAt, events: new WatchLog(), looking: true, ended: false };
      const checkpoint = await this.checkpoint(planId);
      const plan = this.workflow.state.plans[planId];
      if (!checkpoint || !plan) return;
      const log = await this.effectiveLog(checkpoint, watch.log, plan.plan.safety?.touches_files ?? []);
      await this.options.checkpoints.seal(checkpoint, log.seenPaths, log.createdPaths);
      await this.loadChanges(planId, log);
      sealed = true;
    } catch (err) {
      this.options.log?.(
        'warn',
        `Checkpoint of plan ${planId.slice(0, 8)} could not be sealed: ${err instanceof Error ? err.message : String(err)}`,
      );
      await this.loadChanges(planId);
    } finally {
      if (this.watches.get(planId) === watch) this.watches.delete(planId);
      const lateMs = this.options.lateMs ?? 5000;
      if (!sealed || !watch.watcher || !watch.late || lateMs <= 0 || this.isDisposed) watch.watcher?.dispose();
      else {
        this.lateWatches.set(planId, watch);
        watch.late.looking = false;
        void this.lateEvents(planId, watch);
        void this.clock.sleep(lateMs).then(() => this.lateWatches.get(planId) === watch && this.endLate(planId));
      }
    }
  }

  /** The watcher heard `path`: during the run (and its settling) it is the run's; after the seal, a late event. */
  private heard(planId: string, watch: Watch, path: string | undefined, kind: WatchKind): void {
    if (!watch.late) return watch.log.record(path, kind);
    if (watch.late.ended) return;
    watch.late.events.record(path, kind);
    void this.lateEvents(planId, watch);
  }

  /** The late window of the plan's last run ends: its watcher stops. */
  private endLate(planId: string): void {
    const watch = this.lateWatches.get(planId);
    if (!watch) return;
    this.lateWatches.delete(planId);
    if (watch.late) watch.late.ended = true;
    watch.watcher?.dispose();
  }

  /**
   * Events that came after the seal, gathered for a moment and then looked at: a path the checkpoint does not hold yet
   * is the run's when the disk dates its last change before the run stopped (for a path gone now, its folder's last
   * change: a removal changes the folder). A change the disk dates after the stop is somebody else's, left out. The
   * run's are added to the sealed checkpoint (what it recorded of the others stays) and the list is made again.
   */
  private async lateEvents(planId: string, watch: Watch): Promise<void> {
    const late = watch.late;
    if (!late || late.looking || late.ended || !late.events.watched.length) return;
    late.looking = true;
    try {
      await this.clock.sleep(LATE_BATCH_MS);
      const events = late.events.watched;
      late.events = new WatchLog();
      const checkpoint = await this.checkpoint(planId);
      const plan = this.workflow.state.plans[planId];
      if (late.ended || !checkpoint || !plan || plan.phase === 'executing') return;
      const root = checkpoint.workspaceRoot;
      const held = new Set(checkpoint.entries.map((e) => e.path));
      const runs = new Map<string, boolean>();
      for (const { path } of events) {
        if (held.has(path) || runs.has(path)) continue;
        const at =
          (await this.options.disk.changedAt(root, path)) ??
          (await this.options.disk.changedAt(root, path.slice(0, Math.max(0, path.lastIndexOf('/')))));
        runs.set(path, at !== undefined && at <= late.stoppedAt);
      }
      const accepted = events.filter((e) => runs.get(e.path));
      const refused = [...runs].filter(([, ok]) => !ok).map(([p]) => p);
      if (refused.length)
        this.options.log?.('info', `Plan ${planId.slice(0, 8)}: changes after it stopped, not its own: ${refused.join(', ')}`);
      if (!accepted.length) return;
      for (const e of accepted) watch.log.record(e.path, e.kind);
      const log = await this.effectiveLog(checkpoint, watch.log, plan.plan.safety?.touches_files ?? []);
      if (late.ended) return;
      await this.options.checkpoints.seal(checkpoint, log.seenPaths, log.createdPaths, true);
      this.options.log?.(
        'info',
        `Plan ${planId.slice(0, 8)}: the watcher told late of ${accepted.map((e) => e.path).join(', ')}; added to its changed files`,
      );
      await this.loadChanges(planId, log);
    } catch (err) {
      this.options.log?.(
        'warn',
        `Plan ${planId.slice(0, 8)}: late file events could not be looked at: ${err instanceof Error ? err.message : String(err)}`,
      );
    } finally {
      late.looking = false;
      if (late.events.watched.length) void this.lateEvents(planId, watch);
    }
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
      const below = await this.options.disk.filesIfFolder(root, event.path, 2000);
      if (below === undefined) out.record(event.path, event.kind);
      else if (event.kind === 'created') for (const file of below) out.record(file, 'created');
    }
    if (globs.length) {
      const now = await this.options.disk.matching(root, globs);
      const recorded = new Set(out.seenPaths);
      for (const file of now) if (!known.has(file) && !recorded.has(file)) out.record(file, 'created');
    }
    return out;
  }

  /** Computes the actual changes of a plan from its (sealed) checkpoint and the disk; works after a reload too. */
  private async loadChanges(planId: string, log?: WatchLog): Promise<void> {
    const plan = this.workflow.state.plans[planId];
    if (!plan || plan.phase === 'executing' || plan.approvedAt === undefined) return;
    this.changes.set(planId, 'pending');
    const checkpoint = await this.checkpoint(planId);
    if (!checkpoint) {
      this.changes.delete(planId);
      return;
    }
    const disk = await this.options.checkpoints.diskState(checkpoint, log?.seenPaths ?? []);
    const list = computeChanges({
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

  /** An actual change as a diff: the checkpoint's copy (before the plan) and whether the file exists now. */
  async changeDiff(planId: string, path: string): Promise<ChangeDiff | undefined> {
    const checkpoint = await this.checkpoint(planId);
    if (!checkpoint) return undefined;
    const before = await this.options.checkpoints.readFile(checkpoint, path);
    return {
      root: checkpoint.workspaceRoot,
      path,
      before: before ? new TextDecoder().decode(before) : '',
      exists: await this.options.disk.exists(checkpoint.workspaceRoot, path),
    };
  }

  /**
   * What reverting the plan (or one file) would do, changing nothing: one result per file that differs from the
   * checkpoint or cannot be put back (files already as they were are left out). Rejects when there is no checkpoint.
   */
  async revertPreview(planId: string, file?: string): Promise<RevertResult[]> {
    const checkpoint = await this.checkpoint(planId);
    if (!checkpoint) throw new Error('This plan has no checkpoint, so there is nothing to revert to.');
    const store = this.options.checkpoints;
    const preview = file
      ? [await store.revertFile(checkpoint, file, { dryRun: true })]
      : await store.revertPlan(checkpoint, { dryRun: true });
    return preview.filter((r) => !(r.ok && r.action === 'unchanged'));
  }

  /**
   * Reverts the plan's files (or one file, or `paths`) to its checkpoint; a file changed after the plan is left alone
   * (a conflict) unless `force`. Records the reverted files in the workflow. Rejects when there is no checkpoint.
   */
  async revert(planId: string, options: { file?: string; paths?: readonly string[]; force?: boolean } = {}): Promise<RevertOutcome> {
    const checkpoint = await this.checkpoint(planId);
    if (!checkpoint) throw new Error('This plan has no checkpoint, so there is nothing to revert to.');
    const store = this.options.checkpoints;
    const force = options.force === true;
    const results = options.file
      ? [await store.revertFile(checkpoint, options.file, { force })]
      : await store.revertPlan(checkpoint, { force, paths: options.paths });
    const done = results.filter((r) => r.ok && r.action !== 'unchanged').map((r) => r.path);
    const failed = results.filter((r): r is Extract<RevertResult, { ok: false }> => !r.ok);
    if (done.length) this.workflow.dispatch({ type: 'reverted', at: this.clock.now(), planId, files: done });
    this.changes.delete(planId);
    await this.loadChanges(planId);
    return { done, failed };
  }

  override dispose(): void {
    this.isDisposed = true;
    for (const w of [...this.watches.values(), ...this.lateWatches.values()]) w.watcher?.dispose();
    this.watches.clear();
    this.lateWatches.clear();
    super.dispose();
  }
}
