import * as vscode from 'vscode';
import * as path from 'node:path';
import type { Event } from '../core/base/lifecycle';
import { DisposableBase } from '../core/base/lifecycle';
import type { FileWatcher, FilesEngine, WorkspaceFolder } from '../core/files/engine';
import type { RevertResult } from '../core/files/checkpoint';
import { EventKinds, nodeWorkspaceFolder, pathsNow } from '../node/planFilesPorts';
import type { ChangeView, PredictedView } from '../shared/protocol/files';

const PREVIEW_SCHEME = 'plangate-preview';

/** What the panel does with a plan's files: the one interface it holds of the files engine. */
export interface PanelFiles {
  /** Fires with a (top-level) plan id when its predictions or changes changed. */
  readonly onDidChange: Event<string>;
  predicted(planId: string): PredictedView[] | undefined;
  changed(planId: string): ChangeView[] | undefined;
  /** Step `step`'s Preview was pressed; an error in words. */
  previewStep(planId: string, step: number): Promise<string | undefined>;
  openPredicted(planId: string, index: number): Promise<void>;
  openChange(planId: string, file: string): Promise<void>;
  /** Reverts the plan (or one file) after the user confirms; the reverted paths. */
  revert(planId: string, file?: string): Promise<string[]>;
}

/** The first workspace folder on disk (and its real path), for the files engine; undefined without one. */
export function vscodeWorkspaceFolder(): WorkspaceFolder | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder && folder.uri.scheme === 'file' ? nodeWorkspaceFolder(folder.uri.fsPath) : undefined;
}

/**
 * VS Code's file watcher over the whole workspace folder, for the files engine while a plan runs. Its events are named
 * by the files there when the watch began (node/planFilesPorts.ts's `EventKinds`): VS Code says "created" for a file a
 * server renames over one that was there, and a file the plan replaced is not one it created.
 */
export const vscodeFileWatcher: FileWatcher = {
  watch(where, record) {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(where.root), '**/*'));
    const kinds = new EventKinds(pathsNow(where.root), record);
    const rel = (uri: vscode.Uri) => {
      const r = path.relative(where.root, uri.fsPath);
      return r && !r.startsWith('..') && !path.isAbsolute(r) ? r.split(path.sep).join('/') : undefined;
    };
    const on = (what: 'present' | 'gone') => (uri: vscode.Uri) => {
      const r = rel(uri);
      if (r !== undefined) kinds[what](r);
    };
    watcher.onDidCreate(on('present'));
    watcher.onDidChange(on('present'));
    watcher.onDidDelete(on('gone'));
    return watcher;
  },
};

/**
 * Touched files in VS Code: the files engine's predictions and changes shown as diff editors (never stealing focus),
 * and Revert behind a modal confirmation that lists what it will do, with the user's later edits offered as a diff
 * first. The engine (core/files/engine.ts) does the predicting, checkpointing, watching and reverting.
 */
export class PlanFiles extends DisposableBase implements PanelFiles {
  readonly onDidChange: Event<string>;
  private readonly previews = new Map<string, string>();
  private readonly previewChanged = this._register(new vscode.EventEmitter<vscode.Uri>());

  constructor(private readonly engine: FilesEngine) {
    super();
    this.onDidChange = engine.onDidChange;
    this._register(
      vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, {
        onDidChange: this.previewChanged.event,
        provideTextDocumentContent: (uri) => this.previews.get(uri.toString()) ?? '',
      }),
    );
  }

  predicted(planId: string): PredictedView[] | undefined {
    return this.engine.predicted(planId);
  }

  changed(planId: string): ChangeView[] | undefined {
    return this.engine.changed(planId);
  }

  previewStep(planId: string, step: number): Promise<string | undefined> {
    return this.engine.previewStep(planId, step);
  }

  /** Opens predicted change `index` of the plan as a diff of the file now against the predicted result. */
  async openPredicted(planId: string, index: number): Promise<void> {
    const diff = await this.engine.predictedDiff(planId, index);
    if (!diff) return;
    if ('error' in diff) {
      void vscode.window.showWarningMessage(`Plangate: ${diff.error}`);
      return;
    }
    const left = this.preview(`${planId}/${index}/before/${diff.path}`, diff.before);
    const right = this.preview(`${planId}/${index}/after/${diff.path}`, diff.after);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${diff.path} (now ↔ predicted by step ${diff.step + 1})`, {
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

  /** Opens an actual change as a diff of the checkpoint (before the plan) against the file on disk now. */
  async openChange(planId: string, file: string): Promise<void> {
    const diff = await this.engine.changeDiff(planId, file);
    if (!diff) return;
    const left = this.preview(`${planId}/checkpoint/${file}`, diff.before);
    const right = diff.exists ? vscode.Uri.file(path.join(diff.root, file)) : this.preview(`${planId}/deleted/${file}`, '');
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
    const todo = await this.engine.revertPreview(planId, file);
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
    const { done, failed } = await this.engine.revert(planId, file ? { file, force } : { force, paths: only });
    if (failed.length) {
      void vscode.window.showWarningMessage(
        `Plangate: ${failed.length} file(s) were not reverted: ${failed.map((r) => `${r.path}: ${'conflict' in r ? r.message : r.error}`).join('; ')}`,
      );
    }
    if (errors.length === 0 && failed.length === 0) void vscode.window.showInformationMessage(`Plangate: reverted ${done.length} file(s).`);
    return done;
  }
}
