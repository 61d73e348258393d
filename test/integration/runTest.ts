// Runs the in-host suites in a desktop VS Code through @vscode/test-electron, for machines that can download
// VS Code (or have one: VSCODE_EXECUTABLE_PATH=/path/to/code). When VS Code cannot be downloaded it says SKIPPED with
// the reason and exits 0; any other error (including one while the suites run) fails;
// the offline route is e2e/specs/inHost.test.mjs (code-server + Plangate's test hook).
//   npm run build && npx tsx test/integration/runTest.ts
// Linux without a display needs one (e.g. `xvfb-run -a npx tsx test/integration/runTest.ts`).
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';
import { execFileSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');
const home = process.env.PLANGATE_E2E_HOME ?? join(root, '.e2e');
const cachePath = join(home, 'vscode-test');
const downloadHost = 'update.code.visualstudio.com';

function isNetworkError(err: unknown): boolean {
  const text = err instanceof Error ? `${err.message} ${String((err as { cause?: unknown }).cause ?? '')}` : String(err);
  return /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|fetch failed|getaddrinfo/i.test(text);
}

function skip(reason: string): never {
  console.log(`SKIPPED: the @vscode/test-electron suite needs a desktop VS Code, and ${reason}.`);
  console.log('  Set VSCODE_EXECUTABLE_PATH to a VS Code binary, or run it where the download works.');
  console.log('  Offline, the same suites run inside code-server: npm run test:e2e (e2e/specs/inHost.test.mjs).');
  process.exit(0);
}

async function main(): Promise<void> {
  const vscodeExecutablePath = process.env.VSCODE_EXECUTABLE_PATH;
  if (!vscodeExecutablePath) {
    try {
      await lookup(downloadHost);
    } catch {
      if (!existsSync(cachePath)) skip(`${downloadHost} cannot be reached from here (offline)`);
    }
  }
  if (!existsSync(join(root, 'dist', 'extension.js'))) throw new Error('dist/extension.js is missing: run `npm run build` first');

  const suite = join(home, 'suite', 'inHostSuite.js');
  execFileSync(process.execPath, [join(root, 'e2e', 'lib', 'suiteBundle.mjs'), suite], { stdio: 'inherit' });
  const workspace = join(home, 'test-electron-workspace');
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  writeFileSync(join(workspace, 'README.md'), '# in-host test workspace\n');

  // Only the download may skip the suite (no VS Code to be had here); once VS Code is there, every error fails.
  let executable = vscodeExecutablePath;
  if (!executable) {
    try {
      executable = await downloadAndUnzipVSCode({ cachePath });
    } catch (err) {
      if (isNetworkError(err)) skip(`downloading it failed (${err instanceof Error ? err.message : String(err)})`);
      throw err;
    }
  }
  const resultFile = join(home, 'test-electron-result.json');
  rmSync(resultFile, { force: true });
  const code = await runTests({
    extensionDevelopmentPath: root,
    extensionTestsPath: suite,
    // Plangate's test hook runs the same bundle with the services (activate() returns none) and writes this file.
    extensionTestsEnv: { PLANGATE_TEST_SUITE: suite, PLANGATE_TEST_RESULT: resultFile },
    vscodeExecutablePath: executable,
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--user-data-dir', join(cachePath, 'user-data')],
  });
  process.exit(code);
}

main().catch((err: unknown) => {
  console.error('in-host tests under @vscode/test-electron failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
