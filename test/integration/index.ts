// Entry of the in-host test bundle (built by e2e/lib/suiteBundle.mjs together with every *.test.ts here).
//   - Plangate's test hook calls run(vscode, api) and writes the returned result to PLANGATE_TEST_RESULT.
//   - @vscode/test-electron (extensionTestsPath) calls run() with no arguments and reads a rejection as failure.
import type * as vscodeTypes from 'vscode';
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
  const activated = await extension.activate();
  const result = await runRegistered({ vscode: host, api: activated, extension }, grep);
  for (const t of result.tests) console.log(`${t.ok ? '✔' : '✖'} ${t.name} (${t.ms} ms)${t.error ? `\n${t.error}` : ''}`);
  console.log(`${result.passed} passed, ${result.failed} failed`);
  if (result.failed > 0) throw new Error(`${result.failed} of ${result.tests.length} in-host tests failed`);
}
