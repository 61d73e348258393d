import * as vscode from 'vscode';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute } from 'node:path';
import type { Gate } from '../core/engine/gate';
import type { Workflow } from '../core/workflow/ledger';
import type { ServerRegistry } from '../mcp/registry';
import type { ToolCaller } from './callTool';
import type { PlanPanel } from './planPanel';
import type { PolicySource } from './policy';
import type { ServerConfigs } from './serverConfigs';
import type { TreeViews } from './activation';

/** Names the bundle of in-host tests to run (absolute path of a CommonJS file exporting `run`). */
export const TestSuiteEnv = 'PLANGATE_TEST_SUITE';
/** Names the JSON file the results are written to (absolute path). */
export const TestResultEnv = 'PLANGATE_TEST_RESULT';

/** One in-host test's outcome, as written to the result file. */
export interface InHostTestResult {
  name: string;
  ok: boolean;
  /** Message and stack of the failure; absent when `ok`. */
  error?: string;
  /** Why the test did not run its checks (it called `skip`); it is then `ok` but reported as skipped, never as a pass. */
  skipped?: string;
  ms: number;
}

/** The result file's shape: `{passed, failed, tests}`. */
export interface InHostSuiteResult {
  passed: number;
  failed: number;
  tests: InHostTestResult[];
}

/**
 * The running services an in-host suite drives. Handed only to a suite the test harness names through the
 * environment, never returned from `activate()`: an extension that could reach these could approve or call.
 */
export interface InHostServices {
  workflow: Workflow;
  gate: Gate;
  registry: ServerRegistry;
  configs: ServerConfigs;
  panel: PlanPanel;
  caller: ToolCaller;
  /** The policy's sources (settings and the workspace file) and its verdicts. */
  policy: PolicySource;
  /** The tree views' rows, as VS Code asks for them. */
  views: TreeViews;
}

/** How long to wait for `activate()` to finish before running the suite anyway (it then reports the failure). */
const activationWaitMs = 30_000;

/**
 * Runs an in-host test suite when the environment asks for one, for the end-to-end harness (e2e/specs).
 *
 * Inert (returns undefined) unless both PLANGATE_TEST_SUITE and PLANGATE_TEST_RESULT hold absolute paths:
 * code-server's extension host inherits code-server's environment, and the harness sets them. Once this
 * extension is active, the suite bundle is loaded with `require` and its `run(vscode, api)` is awaited; the
 * outcome, or the load error as one failed test, is written atomically to the result file. Never throws.
 * The returned disposable stops a pending run from starting (and from writing) when the extension deactivates.
 */
export function registerTestHook(context: vscode.ExtensionContext, services: () => InHostServices): vscode.Disposable | undefined {
  const suitePath = process.env[TestSuiteEnv];
  const resultPath = process.env[TestResultEnv];
  if (!suitePath || !resultPath) return undefined;
  if (!isAbsolute(suitePath) || !isAbsolute(resultPath)) {
    console.error(`[plangate test hook] ${TestSuiteEnv} and ${TestResultEnv} must be absolute paths; no suite run.`);
    return undefined;
  }
  let disposed = false;
  void (async () => {
    await whenActive(context.extension.id, () => disposed);
    if (disposed) return;
    const result = await runSuite(suitePath, services());
    if (!disposed) writeResult(resultPath, result);
  })().catch((err: unknown) => {
    console.error('[plangate test hook] could not write the result file', err);
  });
  return new vscode.Disposable(() => {
    disposed = true;
  });
}

/** Resolves once `vscode.extensions` reports the extension active (activate() has returned), or after a timeout. */
async function whenActive(extensionId: string, cancelled: () => boolean): Promise<void> {
  const deadline = Date.now() + activationWaitMs;
  while (!cancelled() && Date.now() < deadline) {
    if (vscode.extensions.getExtension(extensionId)?.isActive) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function runSuite(suitePath: string, api: InHostServices): Promise<InHostSuiteResult> {
  const started = Date.now();
  try {
    const load = createRequire(__filename);
    const suite: unknown = load(suitePath);
    const run = (suite as { run?: unknown } | null)?.run;
    if (typeof run !== 'function') throw new Error(`${suitePath} exports no run(vscode, api) function`);
    const result: unknown = await run(vscode, api);
    if (!isSuiteResult(result)) throw new Error(`run(vscode, api) in ${suitePath} returned no {passed, failed, tests} object`);
    return result;
  } catch (err) {
    return {
      passed: 0,
      failed: 1,
      tests: [{ name: 'load and run the in-host suite', ok: false, error: describeError(err), ms: Date.now() - started }],
    };
  }
}

function isSuiteResult(value: unknown): value is InHostSuiteResult {
  const v = value as Partial<InHostSuiteResult> | null;
  return typeof v === 'object' && v !== null && typeof v.passed === 'number' && typeof v.failed === 'number' && Array.isArray(v.tests);
}

function describeError(err: unknown): string {
  return err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
}

/** Writes beside the target and renames, so a reader polling for the file never sees half of it. */
function writeResult(resultPath: string, result: InHostSuiteResult): void {
  mkdirSync(dirname(resultPath), { recursive: true });
  const tmp = `${resultPath}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(result, null, 2));
  renameSync(tmp, resultPath);
}
