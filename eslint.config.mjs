// Lint: typescript-eslint's recommended rules, plus the house's zones (STYLE: zones by dependency), each held by a
// `no-restricted-imports` rule: only src/ui (and src/extension.ts) may import `vscode`; core is pure (no Node
// built-ins, no mcp, node, ui, cli or gate); shared is a leaf (imports nothing of src/ outside shared); the webview
// imports only shared and its own files; the gated proxy (src/gate, a bundle of its own) imports nothing of the extension.
// test/unit/zones.test.ts proves a break in each zone fails lint.
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

const VSCODE = { name: 'vscode', message: 'Only src/ui and src/extension.ts may import vscode (see STYLE: zones by dependency).' };
const NODE_BUILTINS = {
  group: ['node:*', ...builtinModules.filter((m) => !m.startsWith('_'))],
  message:
    'Node built-ins stay out of this zone: take what you need through an interface the caller passes in (core is pure; the webview runs in a browser).',
};
/** `<zone>` and anything below it, reached from a file one, two or three folders under src/ (core/collect/x.ts → ../../mcp). */
const zones = (...names) => names.flatMap((z) => ['../', '../../', '../../../'].flatMap((up) => [`${up}${z}`, `${up}${z}/*`]));

/** The rule for one zone: vscode is always banned outside src/ui; `groups` are further banned patterns. */
function zoneRule(...groups) {
  return { 'no-restricted-imports': ['error', { paths: [VSCODE], patterns: groups.filter((g) => g.group.length > 0) }] };
}
const vscodeBan = zoneRule();

// One door for tool calls (STYLE): in src/, only the door and the layers below it (the registry, a connection,
// the CLI's one-connection invoker) may call `callTool`; everyone else sends through Door.call, which checks the
// decision and records the call. The gate channel's `handler.callTool` is the agent entrance handing a call to
// the handler, which sends it through the door.
const oneDoor = {
  'no-restricted-syntax': [
    'error',
    {
      selector: "CallExpression[callee.property.name='callTool']:not([callee.object.property.name='handler'])",
      message:
        'Send tool calls through the door (src/core/engine/door.ts: Door.call with the decision that covers the call), not callTool directly.',
    },
  ],
};

/** What may leave core: nothing of the extension but shared (and pure libraries). */
const CORE_OUTSIDE = {
  group: zones('mcp', 'node', 'ui', 'cli', 'gate', 'webview', 'extension'),
  message: 'core is the pure engine: it may import only core and shared (and pure libraries).',
};
/**
 * core in layers, lowest first, each with the folders of core it may import (STYLE: zones by dependency). A folder
 * imports only what sits below it, so no arrow runs back up and no two folders import each other:
 * - base: leaves every layer uses (canonical JSON, lifecycle, a tool result's shape, tool hints, globs, URLs);
 * - plan, policy, apps: what a server sends and how it is judged (the envelope, forms and classification, approval
 *   hashes; the policy's rules and decision; the rules for MCP Apps);
 * - forms: collect mode's model (submissions and their reducer), below the workflow that holds them;
 * - workflow: the model of everything seen (the reducer, the ledger and its replay, outcomes, the plan tree);
 * - engine: the door, the gate, the runner and step resolution — every call leaves through here;
 * - collect, files: features above the door (collect mode's engine; what a plan's steps will touch and did);
 * - present: every view model and the words of the workflow;
 * - agent: what an agent call through a gated server does, and the summary it receives.
 */
export const CORE_LAYERS = [
  ['base', []],
  ['plan', ['base']],
  ['policy', ['base']],
  ['apps', ['base']],
  ['forms', ['base', 'plan']],
  ['workflow', ['base', 'plan', 'forms']],
  ['engine', ['base', 'plan', 'policy', 'apps', 'forms', 'workflow']],
  ['collect', ['base', 'plan', 'policy', 'apps', 'forms', 'workflow', 'engine']],
  ['files', ['base', 'plan', 'policy', 'apps', 'forms', 'workflow', 'engine']],
  ['present', ['base', 'plan', 'policy', 'apps', 'forms', 'workflow', 'engine', 'collect', 'files']],
  ['agent', ['base', 'plan', 'policy', 'apps', 'forms', 'workflow', 'engine', 'collect', 'files', 'present']],
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'e2e/node_modules/**',
      '.e2e/**',
      '.demo/**',
      '.bench/**',
      '.stryker-tmp/**',
      'reports/**',
      '**/*.js',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
    },
  },
  { files: ['src/**/*.ts', 'fixture/**/*.ts', 'test/unit/**/*.ts'], ignores: ['src/ui/**', 'src/extension.ts'], rules: vscodeBan },
  // Type-aware where it pays: a promise nobody awaits or catches loses its error (an unhandled rejection in the extension
  // host), and one handed where a void callback is expected is never awaited by its caller. `void` marks a deliberate
  // fire-and-forget.
  {
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  // A module at core's root (there should be none: each belongs to a layer) is held to core's outer rule.
  { files: ['src/core/*.ts'], rules: zoneRule(NODE_BUILTINS, CORE_OUTSIDE) },
  ...CORE_LAYERS.map(([layer, below]) => ({
    files: [`src/core/${layer}/**/*.ts`],
    rules: zoneRule(NODE_BUILTINS, CORE_OUTSIDE, {
      group: CORE_LAYERS.map(([l]) => l)
        .filter((l) => l !== layer && !below.includes(l))
        .flatMap((l) => [`../${l}`, `../${l}/*`]),
      message: `core is in layers: core/${layer} may import only core/${below.length ? below.join(', core/') : layer + ' itself'} (see CORE_LAYERS in eslint.config.mjs).`,
    }),
  })),
  {
    files: ['src/shared/*.ts'],
    rules: zoneRule(NODE_BUILTINS, {
      group: ['../*', '../**'],
      message: 'shared is the leaf both sides of the panel protocol import: it imports nothing of src/ outside shared.',
    }),
  },
  // The protocol, one file per feature (src/shared/protocol/), is inside the leaf: it may import shared, nothing above.
  {
    files: ['src/shared/protocol/**/*.ts'],
    rules: zoneRule(NODE_BUILTINS, {
      group: ['../../*', '../../**'],
      message: 'shared is the leaf both sides of the panel protocol import: it imports nothing of src/ outside shared.',
    }),
  },
  {
    files: ['src/webview/**/*.ts'],
    rules: zoneRule(NODE_BUILTINS, {
      group: zones('core', 'mcp', 'node', 'ui', 'cli', 'gate', 'extension'),
      message: 'the webview renders the view models it is sent: it imports only shared and its own files.',
    }),
  },
  {
    files: ['src/node/**/*.ts'],
    rules: zoneRule({
      group: zones('mcp', 'ui', 'cli', 'gate', 'webview', 'extension'),
      message: 'node (Node I/O shared by the CLI and the extension) may import only core, shared and node.',
    }),
  },
  {
    files: ['src/mcp/**/*.ts'],
    rules: zoneRule({
      group: zones('ui', 'cli', 'webview', 'extension'),
      message: 'mcp (connections and the registry) may not import the UI, the CLI or the webview.',
    }),
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: zoneRule({
      group: zones('ui', 'webview', 'gate', 'extension'),
      message: 'the CLI shares the engine, never the VS Code layer or the webview.',
    }),
  },
  {
    files: ['src/gate/**/*.ts'],
    rules: zoneRule({
      group: zones('core', 'mcp', 'node', 'ui', 'cli', 'webview', 'shared', 'extension'),
      message: 'the gated proxy is a bundle of its own: it imports only src/gate and libraries.',
    }),
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/core/engine/door.ts', 'src/mcp/registry.ts', 'src/mcp/connection.ts', 'src/cli/connectionInvoker.ts', 'src/gate/**'],
    rules: oneDoor,
  },
);
