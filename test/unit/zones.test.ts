// The house's zones are held by the linter (eslint.config.mjs): an import across a zone's boundary is an error.
// Each case lints one line as if it were a file of that zone, through ESLint's own API and the project's config,
// and expects exactly the no-restricted-imports error; an allowed import in the same zone must pass.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { REPO_ROOT } from './helpers/fixture';

// The probes are not files of the TypeScript project, so the type-aware rules (and the project service they need) are
// switched off for them: these tests are about no-restricted-imports, which needs no types.
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfig: {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: false } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
  },
});

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const breaks: [zone: string, file: string, code: string][] = [
  ['core → Node built-in', 'src/core/engine/zoneProbe.ts', "import * as fs from 'node:fs';"],
  ['core → Node built-in (bare name)', 'src/core/engine/zoneProbe.ts', "import * as path from 'path';"],
  ['core → mcp', 'src/core/engine/zoneProbe.ts', "import { ServerRegistry } from '../../mcp/registry';"],
  ['core → node', 'src/core/engine/zoneProbe.ts', "import { openFileLedger } from '../../node/fileLedger';"],
  ['core → ui', 'src/core/engine/zoneProbe.ts', "import { PlanPanel } from '../../ui/planPanel';"],
  ["a module at core's root → Node built-in", 'src/core/zoneProbe.ts', "import * as fs from 'node:fs';"],
  ['core layers: base → plan (up)', 'src/core/base/zoneProbe.ts', "import type { OrchestratedPlan } from '../plan/plan';"],
  ['core layers: plan → workflow (up)', 'src/core/plan/zoneProbe.ts', "import type { WorkflowState } from '../workflow/workflow';"],
  ['core layers: policy → engine (up)', 'src/core/policy/zoneProbe.ts', "import { Door } from '../engine/door';"],
  ['core layers: workflow → engine (up)', 'src/core/workflow/zoneProbe.ts', "import { Door } from '../engine/door';"],
  ['core layers: engine → present (up)', 'src/core/engine/zoneProbe.ts', "import { planTitle } from '../present/workflowWords';"],
  ['core layers: engine → collect (up)', 'src/core/engine/zoneProbe.ts', "import { CollectEngine } from '../collect/engine';"],
  ['core layers: present → agent (up)', 'src/core/present/zoneProbe.ts', "import { createGateHandler } from '../agent/agentCall';"],
  ['core layers: plan ↔ policy (side by side)', 'src/core/plan/zoneProbe.ts', "import { evaluate } from '../policy/evaluate';"],
  ['core → vscode', 'src/core/engine/zoneProbe.ts', "import * as vscode from 'vscode';"],
  ['node → ui', 'src/node/zoneProbe.ts', "import { PlanPanel } from '../ui/planPanel';"],
  ['mcp → ui', 'src/mcp/zoneProbe.ts', "import { PlanPanel } from '../ui/planPanel';"],
  ['cli → ui', 'src/cli/zoneProbe.ts', "import { PlanPanel } from '../ui/planPanel';"],
  ['cli → vscode', 'src/cli/zoneProbe.ts', "import * as vscode from 'vscode';"],
  ['gate → core', 'src/gate/zoneProbe.ts', "import { Door } from '../core/door';"],
  ['core/collect → mcp (a nested folder)', 'src/core/collect/zoneProbe.ts', "import { ServerRegistry } from '../../mcp/registry';"],
  ['core/present → ui (a nested folder)', 'src/core/present/zoneProbe.ts', "import { PlanPanel } from '../../ui/planPanel';"],
  ['shared → core', 'src/shared/zoneProbe.ts', "import type { PlanRecord } from '../core/plan';"],
  ['shared → Node built-in', 'src/shared/zoneProbe.ts', "import * as fs from 'node:fs';"],
  ['shared/protocol → core', 'src/shared/protocol/zoneProbe.ts', "import type { PlanRecord } from '../../core/plan/plan';"],
  ['shared/protocol → webview', 'src/shared/protocol/zoneProbe.ts', "import { h } from '../../webview/base/dom';"],
  ['shared/protocol → Node built-in', 'src/shared/protocol/zoneProbe.ts', "import * as fs from 'node:fs';"],
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
        "import type { ToWebview } from '../shared/protocol/panel';\nimport { h } from './dom';",
      ),
      [],
    );
    assert.deepEqual(await restrictedImports('src/shared/zoneProbe.ts', "import type { ControlValue } from './forms';"), []);
    assert.deepEqual(
      await restrictedImports(
        'src/shared/protocol/zoneProbe.ts',
        "import type { ControlValue } from '../forms';\nimport type { StepHint } from './plan';",
      ),
      [],
    );
    assert.deepEqual(
      await restrictedImports(
        'src/core/engine/zoneProbe.ts',
        "import { Door } from './door';\nimport { visibleText } from '../../shared/visibleText';\nimport type { OrchestratedPlan } from '../plan/plan';\nimport { evaluate } from '../policy/evaluate';",
      ),
      [],
    );
    assert.deepEqual(
      await restrictedImports('src/ui/zoneProbe.ts', "import * as vscode from 'vscode';\nimport { Door } from '../core/engine/door';"),
      [],
    );
    assert.deepEqual(
      await restrictedImports('src/mcp/zoneProbe.ts', "import { Door } from '../core/door';\nimport * as fs from 'node:fs';"),
      [],
    );
    assert.deepEqual(
      await restrictedImports(
        'src/core/agent/zoneProbe.ts',
        "import { planTitle } from '../present/workflowWords';\nimport { Door } from '../engine/door';",
      ),
      [],
    );
    assert.deepEqual(await restrictedImports('src/cli/zoneProbe.ts', "import { McpConnection } from '../mcp/connection';"), []);
  });
});

test("core's root holds no module, and every folder of core is a layer that lint holds", async () => {
  const config: string = join(REPO_ROOT, 'eslint.config.mjs');
  const { CORE_LAYERS } = (await import(config)) as { CORE_LAYERS: [string, string[]][] };
  const entries = readdirSync(join(REPO_ROOT, 'src/core'), { withFileTypes: true });
  assert.deepEqual(
    entries.filter((e) => e.isFile()).map((e) => e.name),
    [],
  );
  const layers = CORE_LAYERS.map(([layer]) => layer);
  assert.deepEqual(
    entries
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort(),
    [...layers].sort(),
  );
  // Each layer may import only layers listed before it: the table itself has no arrow up.
  CORE_LAYERS.forEach(([layer, below], i) => {
    for (const b of below) assert.ok(layers.indexOf(b) < i, `${layer} may import ${b}, which is not below it`);
  });
});
