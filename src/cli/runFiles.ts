/**
 * The files a `plangate run` touches, through the same files engine as the extension (core/files/engine.ts): a
 * checkpoint of every file the plan may touch before its first step, a watch on the current folder while it runs,
 * and, after the run, the list of the files it changed.
 *
 * Where the checkpoint is kept: with `--ledger FILE`, beside the ledger (`<FILE's folder>/checkpoints/<plan id>/`),
 * the layout of the extension's storage (its `ledger.jsonl` with `checkpoints/` beside it), so `plangate revert
 * --ledger FILE` finds it later, also for a plan run in the extension when FILE is the extension's ledger. Without
 * `--ledger`, in a private temporary folder removed when the run ends: the changes are listed, nothing can be reverted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { FilesEngine } from '../core/files/engine';
import type { Workflow } from '../core/workflow/ledger';
import { getPlan } from '../core/workflow/workflow';
import { nodeCheckpointStore, nodeFileWatcher, nodeWorkspaceDisk, nodeWorkspaceFolder } from '../node/planFilesPorts';
import type { ChangeView } from '../shared/protocol/files';
import type { Output } from './output';
import { quoteCommandLine } from './splitCommandLine';
import { safeText } from './safeText';

/** The most changed files listed one per line; the rest are counted. */
const MAX_LISTED = 50;

export interface RunFiles {
  engine: FilesEngine;
  /** The ledger the checkpoint sits beside, as the user gave it; undefined: a temporary checkpoint. */
  ledger?: string;
  dispose(): void;
}

/** The files engine for one run in folder `cwd`; `ledger` is `--ledger FILE`. */
export function openRunFiles(workflow: Workflow, ledger: string | undefined, cwd = process.cwd()): RunFiles {
  const temporary = ledger === undefined;
  const storage = temporary ? mkdtempSync(join(tmpdir(), 'plangate-run-')) : dirname(resolve(cwd, ledger));
  const folder = nodeWorkspaceFolder(cwd);
  // A ledger (and so its checkpoints) the user keeps inside the folder is Plangate's own writing, not the plan's.
  const ignore = [join(storage, 'checkpoints'), ...(ledger === undefined ? [] : [resolve(cwd, ledger)])];
  const engine = new FilesEngine({
    workflow,
    folder: () => folder,
    disk: nodeWorkspaceDisk({ ignore }),
    checkpoints: nodeCheckpointStore(storage),
    watcher: nodeFileWatcher({ ignore }),
  });
  return {
    engine,
    ledger,
    dispose: () => {
      engine.dispose();
      if (temporary) rmSync(storage, { recursive: true, force: true });
    },
  };
}

/**
 * Takes the plan's checkpoint (the gate's beforeRun) after its approval, before its first step. When it cannot be
 * taken nothing runs: the first pending step fails saying why, as in the extension. Returns whether the run may start.
 */
export async function checkpointBeforeRun(files: RunFiles, workflow: Workflow, planId: string): Promise<boolean> {
  const plan = getPlan(workflow.state, planId);
  if (!plan) return false;
  try {
    await files.engine.beforeRun(plan);
    return true;
  } catch (err) {
    const step = plan.steps.find((s) => s.state === 'pending');
    const message = `the checkpoint of the files the plan may touch could not be taken (${err instanceof Error ? err.message : String(err)})`;
    if (step) workflow.dispatch({ type: 'stepFailed', at: Date.now(), planId, step: step.index, error: `Nothing ran: ${message}` });
    return false;
  }
}

/** After the run: the files the plan changed in this folder, one per line, and how to put them back. */
export async function printChangedFiles(out: Output, files: RunFiles, planId: string): Promise<void> {
  const changes = await files.engine.settledChanges(planId);
  if (changes === undefined) return; // no checkpoint: the run never started
  out.info(...changedFilesLines(changes, planId, files.ledger));
}

/** The section `plangate run` prints after a run (exported for tests of its wording). */
export function changedFilesLines(changes: readonly ChangeView[], planId: string, ledger: string | undefined): string[] {
  if (changes.length === 0) return ['No files changed in this folder.'];
  const undeclared = changes.filter((c) => c.undeclared).length;
  const lines = [`Files changed in this folder (${changes.length}${undeclared ? `, ${undeclared} undeclared` : ''}):`];
  for (const c of changes.slice(0, MAX_LISTED)) {
    const flags = [c.undeclared ? 'undeclared write' : '', c.unexpectedCode ? 'code, although the plan said it writes none' : '']
      .filter(Boolean)
      .join('; ');
    lines.push(`  ${c.kind.padEnd(8)}  ${safeText(c.path, { max: 500 })}${flags ? `  (${flags})` : ''}`);
  }
  if (changes.length > MAX_LISTED) lines.push(`  … and ${changes.length - MAX_LISTED} more`);
  lines.push(
    ledger === undefined
      ? 'To be able to revert a run, record it with --ledger FILE (its checkpoint is kept beside the ledger).'
      : `Revert them with: plangate revert --ledger ${safeText(quoteCommandLine([ledger]), { max: 500 })} ${planId.slice(0, 8)}`,
  );
  return lines;
}
