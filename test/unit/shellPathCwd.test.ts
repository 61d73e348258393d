// The login shell Plangate asks for its PATH must not start in the workspace: an interactive shell's prompt hooks
// (direnv, a git-aware theme whose `git status` honours a repository's core.fsmonitor) would run the folder's code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeAugmentedPath } from '../../src/mcp/shellPath';

test(
  'the login shell asked for the PATH runs in the home folder, not in the current (workspace) folder',
  { skip: process.platform === 'win32' && 'no login shell on Windows' },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'plangate-shell-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    // A stand-in shell that answers with the folder it was started in, where the PATH would be.
    const shell = join(dir, 'fake-shell');
    writeFileSync(shell, `#!/bin/sh\nprintf '%s' __PLANGATE_PATH__; pwd; printf '%s' __PLANGATE_PATH__\n`);
    chmodSync(shell, 0o755);
    assert.notEqual(process.cwd(), homedir(), 'the test needs a current folder other than the home folder');
    const result = await computeAugmentedPath({ shell, env: { PATH: '' }, home: dir, platform: 'linux' });
    assert.equal(result.split(':')[0], homedir());
  },
);
