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
  return { 'no-restricted-imports': ['error', { paths: [VSCODE], patterns: groups }] };
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
        'Send tool calls through the door (src/core/door.ts: Door.call with the decision that covers the call), not callTool directly.',
    },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'e2e/node_modules/**', '.e2e/**', '.demo/**', '.bench/**', '**/*.js'] },
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
  {
    files: ['src/core/**/*.ts'],
    rules: zoneRule(NODE_BUILTINS, {
      group: zones('mcp', 'node', 'ui', 'cli', 'gate', 'webview', 'extension'),
      message: 'core is the pure engine: it may import only core and shared (and pure libraries).',
    }),
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: zoneRule(NODE_BUILTINS, {
      group: ['../*', '../**'],
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
    ignores: ['src/core/door.ts', 'src/mcp/registry.ts', 'src/mcp/connection.ts', 'src/cli/connectionInvoker.ts', 'src/gate/**'],
    rules: oneDoor,
  },
);
