/**
 * `plangate revert --ledger FILE [PLAN] [--yes] [--force]`: restores the files a plan changed in the current folder
 * from the checkpoint taken before its first step — by `plangate run --ledger FILE` (kept beside the ledger), or by the
 * extension (its `ledger.jsonl`, with `checkpoints/` beside it, in its workspace storage folder). The same files
 * engine and checkpoint code as the panel's Revert: a file the user changed after the plan is a conflict (left as it
 * is unless --force), nothing is read or written through a link that leads out of the folder, and a plan that ran in
 * another folder is refused. The revert is recorded in the ledger.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { RevertResult } from '../core/files/checkpoint';
import { FilesEngine } from '../core/files/engine';
import type { PlanRecord } from '../core/workflow/workflow';
import { openFileLedger, type OpenedLedger } from '../node/fileLedger';
import { nodeCheckpointStore, nodeWorkspaceDisk, nodeWorkspaceFolder } from '../node/planFilesPorts';
import type { Output } from './output';
import { Prompter } from './prompter';
import { safeText } from './safeText';

export const USAGE_REVERT = `plangate revert --ledger FILE [PLAN] [--yes] [--force]
  Restores the files a plan changed in the current folder to how they were before its first step, from the
  checkpoint taken then: by plangate run --ledger FILE (kept beside FILE), or by the VS Code extension (give its
  ledger.jsonl; its checkpoints sit beside it).
  PLAN      the plan's id, or its first characters as plangate run printed them; default: the last plan recorded
            in FILE that ran in the current folder
  Shows each file and what revert does to it (restore, or remove a file the plan created), then asks "Revert?".
  A file changed again after the plan ran is a conflict and is left as it is, unless --force.
  Only files inside the current folder are written, never through a symbolic link that leads out of it; a plan
  that ran in another folder is refused (run plangate revert there).
  --yes     revert without asking (needed when stdin or stdout is not a terminal)
  --force   also overwrite files changed after the plan ran
  Exit 0: reverted, or nothing to revert. 1: a file could not be reverted, or you said no. 2: usage error, no such
  plan, or no checkpoint.`;

export interface RevertCommandOptions {
  ledger: string;
  plan?: string;
  yes: boolean;
  force: boolean;
  interactive: boolean;
  /** The folder whose files may be written (the current folder). */
  cwd?: string;
}

/** Parses `plangate revert`'s arguments and runs it; resolves with the exit code. */
export async function revertMain(argv: string[], out: () => Output, interactive: boolean): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        ledger: { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
        force: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return usage(out(), safeText(err instanceof Error ? err.message.split('. To specify a positional')[0] : String(err), { max: 500 }));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out().info(USAGE_REVERT);
    return 0;
  }
  if (positionals.length > 1) return usage(out(), `give one PLAN, not ${positionals.length}`);
  if (values.ledger === undefined || values.ledger.trim() === '')
    return usage(out(), '--ledger FILE is required: the ledger the plan was recorded in (plangate run --ledger FILE)');
  return revertCommand(
    { ledger: values.ledger, plan: positionals[0], yes: values.yes === true, force: values.force === true, interactive },
    out(),
  );
}

function usage(out: Output, message: string): number {
  out.error(`plangate revert: ${message}\nSee plangate revert --help.`);
  return 2;
}

export async function revertCommand(options: RevertCommandOptions, out: Output): Promise<number> {
  const fail = (message: string, code = 2) => {
    out.error(`plangate revert: ${message}`);
    return code;
  };
  const cwd = options.cwd ?? process.cwd();
  const ledgerPath = resolve(cwd, options.ledger);
  const shownLedger = safeText(options.ledger, { max: 500 });
  if (!existsSync(ledgerPath)) return fail(`there is no ledger ${shownLedger}; give the --ledger FILE the plan was run with.`);
  let opened: OpenedLedger;
  try {
    opened = openFileLedger(ledgerPath);
  } catch (err) {
    return fail(`cannot open the ledger ${shownLedger}: ${safeText(err instanceof Error ? err.message : String(err), { max: 1000 })}`);
  }
  for (const w of opened.warnings) out.error(`warning: ${safeText(w, { max: 1000 })}`);
  const folder = nodeWorkspaceFolder(cwd);
  const here = realPath(cwd);
  const engine = new FilesEngine({
    workflow: opened.workflow,
    folder: () => folder,
    disk: nodeWorkspaceDisk(),
    checkpoints: nodeCheckpointStore(dirname(ledgerPath)),
  });
  const prompter = options.interactive && !options.yes ? new Prompter(out) : undefined;
  try {
    const plans = Object.values(opened.workflow.state.plans).filter((p) => p.parentId === undefined);
    let plan: PlanRecord | undefined;
    if (options.plan !== undefined) {
      const want = options.plan.trim();
      const matches = plans.filter((p) => p.id === want || (want.length >= 4 && p.id.startsWith(want)));
      const exact = matches.find((p) => p.id === want);
      if (!exact && matches.length > 1)
        return fail(`${safeText(want, { max: 100 })} is the start of ${matches.length} plans' ids in ${shownLedger}; give more of it.`);
      plan = exact ?? matches[0];
      if (!plan) return fail(`there is no plan ${safeText(want, { max: 100 })} in ${shownLedger}.`);
    } else {
      // The last approved plan whose checkpoint is of this folder.
      const approved = plans.filter((p) => p.approvedAt !== undefined).sort((a, b) => b.approvedAt! - a.approvedAt!);
      for (const p of approved) {
        const cp = await engine.checkpoint(p.id);
        if (cp && realPath(cp.workspaceRoot) === here) {
          plan = p;
          break;
        }
      }
      if (!plan)
        return fail(
          `${shownLedger} records no plan that ran in this folder (${safeText(cwd, { max: 500 })}) with a checkpoint; run plangate revert in the folder the plan ran in, or name the PLAN.`,
        );
    }
    const name = `plan ${plan.id.slice(0, 8)} (${safeText(plan.origin.tool, { max: 100 })} on ${safeText(plan.origin.server, { max: 100 })})`;
    if (plan.approvedAt === undefined) return fail(`${name} was never approved, so it changed no files.`);
    if (plan.phase === 'executing') return fail(`${name} is still running; stop it first.`);
    const checkpoint = await engine.checkpoint(plan.id);
    if (!checkpoint)
      return fail(`${name} has no checkpoint beside ${shownLedger} (runs without --ledger keep none), so there is nothing to revert to.`);
    if (realPath(checkpoint.workspaceRoot) !== here)
      return fail(
        `${name} ran in ${safeText(checkpoint.workspaceRoot, { max: 500 })}, not in this folder; run plangate revert there, so that only that folder's files are written.`,
      );

    const todo = await engine.revertPreview(plan.id);
    if (todo.length === 0) {
      out.info(`Nothing to revert: the files of ${name} already match its checkpoint.`);
      return 0;
    }
    const will = (r: RevertResult) => r.ok || (options.force && 'conflict' in r);
    out.info(`Reverting ${name} would change ${todo.filter(will).length} file(s) in this folder:`);
    for (const r of todo) out.info(`  ${describe(r, options.force)}`);
    const paths = todo.filter(will).map((r) => r.path);
    if (paths.length === 0) {
      out.info('Nothing can be reverted.');
      return 1;
    }
    if (!options.yes) {
      if (!prompter)
        return fail(
          'there is no terminal to ask "Revert?" on (stdin and stdout must be a terminal). Nothing was reverted. Review the list above, then pass --yes.',
        );
      if (!(await prompter.confirm('Revert?'))) {
        out.info('Nothing was reverted.');
        return 1;
      }
    }
    const { done, failed } = await engine.revert(plan.id, { paths, force: options.force });
    out.info(`Reverted ${done.length} file(s).`);
    for (const r of failed) out.error(`  not reverted: ${safeText('conflict' in r ? r.message : r.error, { max: 1000 })}`);
    const leftOut = todo.length - paths.length;
    return failed.length || leftOut ? 1 : 0;
  } finally {
    prompter?.close();
    engine.dispose();
    opened.dispose();
  }
}

/** One line of the list: what revert does to the file, or why it leaves it. */
function describe(r: RevertResult, force: boolean): string {
  const path = safeText(r.path, { max: 500 });
  if (r.ok) return r.action === 'removed' ? `remove   ${path}  (the plan created it)` : `restore  ${path}`;
  if ('conflict' in r)
    return force
      ? `restore  ${path}  (changed after the plan: --force overwrites it)`
      : `keep     ${path}  (${safeText(r.message, { max: 1000 })} Pass --force to revert it anyway.)`;
  return `keep     ${path}  (${safeText(r.error, { max: 1000 })})`;
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
