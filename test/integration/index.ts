// Entry of the in-host test bundle (built by e2e/lib/suiteBundle.mjs together with every *.test.ts here).
//   - Plangate's test hook calls run(vscode, api) and writes the returned result to PLANGATE_TEST_RESULT.
//   - @vscode/test-electron (extensionTestsPath) calls run() with no arguments and reads a rejection as failure.
import type * as vscodeTypes from 'vscode';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { InHostSuiteResult } from '../../src/ui/testHook';
import { runRegistered } from './suite';

/** Plangate's extension id (`publisher.name` in package.json). */
export const extensionId = 'plangate.plangate';

/**
 * Runs the registered in-host tests (those $PLANGATE_TEST_GREP selects: a name part, or `!part` to leave out).
 * With `vscode` given, returns the result; without, loads `vscode` and activates Plangate itself, prints
 * each test, and rejects when any failed.
 */
export async function run(vscode?: typeof vscodeTypes, api?: unknown): Promise<InHostSuiteResult | void> {
  const grep = process.env.PLANGATE_TEST_GREP ?? '';
  if (vscode) {
    const extension = vscode.extensions.getExtension(extensionId);
    if (!extension) throw new Error(`extension ${extensionId} is not installed in this host`);
    return runRegistered({ vscode, api, extension }, grep);
  }
  const host = createRequire(__filename)('vscode') as typeof vscodeTypes;
  const extension = host.extensions.getExtension(extensionId);
  if (!extension) throw new Error(`extension ${extensionId} is not loaded: is extensionDevelopmentPath the repository root?`);
  // activate() hands nothing out: the services reach the suites only through the test hook, which runTest.ts
  // points at this same bundle (PLANGATE_TEST_SUITE / PLANGATE_TEST_RESULT); here we wait for its result file.
  await extension.activate();
  const result = await hookResult(process.env.PLANGATE_TEST_RESULT);
  for (const t of result.tests)
    console.log(
      `${t.skipped !== undefined ? '﹣ SKIPPED' : t.ok ? '✔' : '✖'} ${t.name} (${t.ms} ms)${t.skipped ? `: ${t.skipped}` : ''}${t.error ? `\n${t.error}` : ''}`,
    );
  const skipped = result.tests.filter((t) => t.skipped !== undefined).length;
  console.log(`${result.passed} passed, ${skipped} skipped, ${result.failed} failed`);
  if (result.failed > 0) throw new Error(`${result.failed} of ${result.tests.length} in-host tests failed`);
}

/** The result file Plangate's test hook writes once it has run the suites (10 minutes at most). */
async function hookResult(file: string | undefined): Promise<InHostSuiteResult> {
  if (!file) throw new Error('PLANGATE_TEST_RESULT is not set: runTest.ts sets it, with PLANGATE_TEST_SUITE, for the test hook');
  const deadline = Date.now() + 600_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`the test hook wrote no result to ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return JSON.parse(readFileSync(file, 'utf8')) as InHostSuiteResult;
}
