// The house's zones are held by the linter (eslint.config.mjs): an import across a zone's boundary is an error.
// Each case lints one line as if it were a file of that zone, through ESLint's own API and the project's config,
// and expects exactly the no-restricted-imports error; an allowed import in the same zone must pass.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: process.cwd() });

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const breaks: [zone: string, file: string, code: string][] = [
  ['core → Node built-in', 'src/core/zoneProbe.ts', "import * as fs from 'node:fs';"],
  ['core → Node built-in (bare name)', 'src/core/zoneProbe.ts', "import * as path from 'path';"],
  ['core → mcp', 'src/core/zoneProbe.ts', "import { ServerRegistry } from '../mcp/registry';"],
  ['core → node', 'src/core/zoneProbe.ts', "import { openFileLedger } from '../node/fileLedger';"],
  ['core → ui', 'src/core/zoneProbe.ts', "import { PlanPanel } from '../ui/planPanel';"],
  ['core → vscode', 'src/core/zoneProbe.ts', "import * as vscode from 'vscode';"],
  ['node → ui', 'src/node/zoneProbe.ts', "import { PlanPanel } from '../ui/planPanel';"],
  ['mcp → ui', 'src/mcp/zoneProbe.ts', "import { PlanPanel } from '../ui/planPanel';"],
  ['cli → ui', 'src/cli/zoneProbe.ts', "import { PlanPanel } from '../ui/planPanel';"],
  ['cli → vscode', 'src/cli/zoneProbe.ts', "import * as vscode from 'vscode';"],
  ['gate → core', 'src/gate/zoneProbe.ts', "import { Door } from '../core/door';"],
  ['core/collect → mcp (a nested folder)', 'src/core/collect/zoneProbe.ts', "import { ServerRegistry } from '../../mcp/registry';"],
  ['core/present → ui (a nested folder)', 'src/core/present/zoneProbe.ts', "import { PlanPanel } from '../../ui/planPanel';"],
  ['shared → core', 'src/shared/zoneProbe.ts', "import type { PlanRecord } from '../core/plan';"],
  ['shared → Node built-in', 'src/shared/zoneProbe.ts', "import * as fs from 'node:fs';"],
  ['webview → core', 'src/webview/zoneProbe.ts', "import { outcomeSentence } from '../core/outcome';"],
  ['webview → ui', 'src/webview/zoneProbe.ts', "import { PlanPanel } from '../ui/planPanel';"],
  ['webview → Node built-in', 'src/webview/zoneProbe.ts', "import * as path from 'node:path';"],
];

describe('lint holds the zones', () => {
  for (const [zone, file, code] of breaks) {
    test(`${zone} is an error`, async () => {
      const errors = await restrictedImports(file, code);
      assert.equal(
        errors.length,
        1,
        `expected one no-restricted-imports error for ${JSON.stringify(code)} in ${file}, got ${JSON.stringify(errors)}`,
      );
    });
  }

  test('imports inside the rules pass: core → core, core → shared, ui → vscode, mcp → core, cli → mcp, webview → shared, shared → shared', async () => {
    assert.deepEqual(
      await restrictedImports(
        'src/webview/zoneProbe.ts',
        "import type { ToWebview } from '../shared/protocol';\nimport { h } from './dom';",
      ),
      [],
    );
    assert.deepEqual(await restrictedImports('src/shared/zoneProbe.ts', "import type { ControlValue } from './forms';"), []);
    assert.deepEqual(
      await restrictedImports(
        'src/core/zoneProbe.ts',
        "import { Door } from './door';\nimport { visibleText } from '../shared/visibleText';",
      ),
      [],
    );
    assert.deepEqual(
      await restrictedImports('src/ui/zoneProbe.ts', "import * as vscode from 'vscode';\nimport { Door } from '../core/door';"),
      [],
    );
    assert.deepEqual(
      await restrictedImports('src/mcp/zoneProbe.ts', "import { Door } from '../core/door';\nimport * as fs from 'node:fs';"),
      [],
    );
    assert.deepEqual(await restrictedImports('src/cli/zoneProbe.ts', "import { McpConnection } from '../mcp/connection';"), []);
  });
});
