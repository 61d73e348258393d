// README "Glob semantics of touches_files": the checkpoint walks the folders the globs name and skips `node_modules`,
// `.git` and the other VCS folders (`.hg`, `.svn`, `.jj`). The walk is listWorkspaceFiles with its defaults, as the
// checkpoint and the actual changes call it (src/ui/planFiles.ts).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { listWorkspaceFiles } from '../../src/node/workspaceFiles';

const root = mkdtempSync(join(tmpdir(), 'plangate-claims-vcs-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('the checkpoint walk never enters node_modules, .git, .hg, .svn or .jj, at the top or deeper, but takes other dot folders', async () => {
  const skipped = ['node_modules', '.git', '.hg', '.svn', '.jj'];
  const files = ['src/a.ts', '.github/workflows/ci.yml', ...skipped.flatMap((d) => [`${d}/store/data`, `src/${d}/inner`])];
  for (const f of files) {
    mkdirSync(dirname(join(root, f)), { recursive: true });
    writeFileSync(join(root, f), 'x');
  }
  const all = await listWorkspaceFiles(root, ['**']);
  assert.deepEqual(all.files, ['.github/workflows/ci.yml', 'src/a.ts']);
  const underSrc = await listWorkspaceFiles(root, ['src/**']);
  assert.deepEqual(underSrc.files, ['src/a.ts']);
});
