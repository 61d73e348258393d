// A tiny test API for suites that run inside a real extension host: in code-server through Plangate's test hook
// (src/ui/testHook.ts, driven by e2e/specs/inHost.test.mjs), or under @vscode/test-electron (runTest.ts).
// Tests register at import time and run one after another in registration order.
import type * as vscodeTypes from 'vscode';
import assert from 'node:assert/strict';
import type { InHostSuiteResult, InHostTestResult } from '../../src/ui/testHook';

export { assert };

/** What every in-host test receives. */
export interface InHostContext {
  /** The host's `vscode` module. */
  vscode: typeof vscodeTypes;
  /** The services Plangate's test hook hands the suite (InHostServices; typed loosely so suites state what they rely on). */
  api: unknown;
  /** Plangate's own extension object. */
  extension: vscodeTypes.Extension<unknown>;
}

export type InHostTest = (ctx: InHostContext) => unknown;

interface Registered {
  name: string;
  fn: InHostTest;
  timeoutMs: number;
}

const registered: Registered[] = [];
const prefixes: string[] = [];

/** Groups tests: their names are prefixed with `name › `. */
export function suite(name: string, body: () => void): void {
  prefixes.push(name);
  try {
    body();
  } finally {
    prefixes.pop();
  }
}

/** Registers a test; it fails if it throws, rejects, or runs longer than `timeoutMs` (default 30 s). */
export function test(name: string, fn: InHostTest, { timeoutMs = 30_000 }: { timeoutMs?: number } = {}): void {
  registered.push({ name: [...prefixes, name].join(' › '), fn, timeoutMs });
}

/** Thrown by {@link skip}: the test did not run its checks, for the stated reason. */
class Skipped extends Error {}

/**
 * Ends the running test as skipped: it is reported as skipped with `reason` (a node:test skip in the e2e report, where
 * the in-host spec fails on it unless told a skip is expected), never as a pass.
 */
export function skip(reason: string): never {
  throw new Skipped(reason);
}

function describeError(err: unknown): string {
  return err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
}

async function withTimeout(run: () => unknown, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(run),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a test named `name` is selected by `grep`: all when empty, `!text` excludes names containing text. */
export function selected(name: string, grep: string): boolean {
  if (!grep) return true;
  return grep.startsWith('!') ? !name.includes(grep.slice(1)) : name.includes(grep);
}

/**
 * Runs every registered test selected by `grep` (see `selected`), in order, and reports each.
 * Never throws: a failing test is recorded with its error.
 */
export async function runRegistered(ctx: InHostContext, grep = ''): Promise<InHostSuiteResult> {
  const tests: InHostTestResult[] = [];
  for (const t of registered) {
    if (!selected(t.name, grep)) continue;
    const started = Date.now();
    try {
      await withTimeout(() => t.fn(ctx), t.timeoutMs);
      tests.push({ name: t.name, ok: true, ms: Date.now() - started });
    } catch (err) {
      if (err instanceof Skipped) tests.push({ name: t.name, ok: true, skipped: err.message, ms: Date.now() - started });
      else tests.push({ name: t.name, ok: false, error: describeError(err), ms: Date.now() - started });
    }
  }
  const failed = tests.filter((t) => !t.ok).length;
  return { passed: tests.filter((t) => t.ok && t.skipped === undefined).length, failed, tests };
}
