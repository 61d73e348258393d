// README claims the manifest carries: which settings a workspace cannot change (their `scope` in package.json; the
// code reading them from user settings only is checked in the real extension host, test/integration/userSettings.test.ts),
// and `.vscode/plangate-policy.json` completed and validated by VS Code with Plangate's JSON Schema, which must accept
// what `plangate policy check` accepts and refuse what it refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parsePolicyText } from '../../src/core/policy/parse';
import { REPO_ROOT } from './helpers/fixture';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
const props = pkg.contributes.configuration.properties as Record<string, { scope?: string; markdownDescription?: string }>;

test("README Settings: plangate.policy and plangate.autoApprovePlans are application-scoped (a workspace cannot change them), the ledger's limits user or machine only", () => {
  for (const key of ['plangate.policy', 'plangate.autoApprovePlans'])
    assert.equal(props[key]?.scope, 'application', `${key} has scope ${props[key]?.scope}: a workspace could set it`);
  // `machine` settings, like `application` ones, are refused in workspace and folder settings by VS Code.
  for (const key of ['plangate.ledger.maxSizeMB', 'plangate.ledger.maxAgeDays']) {
    assert.ok(
      ['application', 'machine'].includes(props[key]?.scope ?? ''),
      `${key} has scope ${props[key]?.scope}: a workspace could set it`,
    );
    assert.match(
      props[key]?.markdownDescription ?? '',
      /A user setting: a workspace cannot change it\b/,
      `${key} does not say it is the user's`,
    );
  }
});

/** The schema VS Code applies to the workspace policy file, found through package.json's `jsonValidation` as VS Code finds it. */
function policySchema(): Record<string, unknown> {
  const entries = pkg.contributes.jsonValidation as { fileMatch: string | string[]; url: string }[];
  const entry = entries.find((e) => [e.fileMatch].flat().includes('.vscode/plangate-policy.json'));
  assert.ok(entry, 'package.json contributes no jsonValidation for .vscode/plangate-policy.json');
  assert.match(entry.url, /^\.\//, 'the schema is a file of the extension (a relative url), not fetched from the network');
  return JSON.parse(readFileSync(join(REPO_ROOT, entry.url), 'utf8')) as Record<string, unknown>;
}

test('README Policy: .vscode/plangate-policy.json validates with the JSON Schema package.json points VS Code at, agreeing with Plangate on valid and invalid files', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(policySchema());
  const valid = [
    { rules: [] },
    {
      $schema: './schema.json',
      rules: [
        { id: 'stay-inside', decision: 'deny', reason: 'writes stay in the workspace', args: [{ path: '$.path', outsideWorkspace: true }] },
        { id: 'agent-deletes', decision: 'ask', reason: 'deleting is reviewed', tool: 'delete_*', entrance: 'agent' },
        { id: 'fs-reads', decision: 'allow', reason: 'reads are harmless', server: 'fs', annotations: { readOnly: true } },
      ],
    },
  ];
  const invalid: [string, unknown][] = [
    ['a decision that is not allow/ask/deny', { rules: [{ id: 'a', decision: 'maybe', reason: 'r' }] }],
    ['a rule without a reason', { rules: [{ id: 'a', decision: 'deny' }] }],
    ['a rule without an id', { rules: [{ decision: 'deny', reason: 'r' }] }],
    ['a misspelt field', { rules: [{ id: 'a', decision: 'deny', reason: 'r', tools: 'x' }] }],
    ['an args condition without a path', { rules: [{ id: 'a', decision: 'deny', reason: 'r', args: [{ glob: '*' }] }] }],
    ['rules that are not a list', { rules: { id: 'a' } }],
  ];
  for (const file of valid) {
    assert.ok(validate(file), `the schema refuses a valid file: ${JSON.stringify(ajv.errorsText(validate.errors))}`);
    assert.deepEqual(
      parsePolicyText(JSON.stringify(file)).problems.filter((p) => p.severity === 'error'),
      [],
      'Plangate itself reads the valid file without errors',
    );
  }
  for (const [what, file] of invalid) {
    assert.equal(validate(file), false, `the schema accepts ${what}`);
    assert.ok(
      parsePolicyText(JSON.stringify(file)).problems.length > 0,
      `Plangate itself reports ${what} too (the schema and the reader agree)`,
    );
  }
});

test('README Policy: VS Code completes a new rule in .vscode/plangate-policy.json from the schema (a snippet and the three decisions)', () => {
  const schema = policySchema() as {
    definitions?: { rule?: { defaultSnippets?: { body?: Record<string, unknown> }[]; properties?: Record<string, { enum?: string[] }> } };
  };
  const rule = schema.definitions?.rule;
  assert.ok(
    rule?.defaultSnippets?.some((s) => s.body && 'id' in s.body && 'decision' in s.body && 'reason' in s.body),
    'no snippet for a new rule',
  );
  assert.deepEqual(rule?.properties?.decision?.enum?.slice().sort(), ['allow', 'ask', 'deny']);
});
