// Lint: typescript-eslint's recommended rules, plus the house boundary: only src/ui (and src/extension.ts)
// may import `vscode`; core, mcp, cli, shared and webview stay free of it.
import tseslint from 'typescript-eslint';

const vscodeBan = {
  'no-restricted-imports': ['error', {
    paths: [{ name: 'vscode', message: 'Only src/ui and src/extension.ts may import vscode (see STYLE: zones by dependency).' }],
  }],
};

// One door for tool calls (STYLE): in src/, only the door and the layers below it (the registry, a connection,
// the CLI's one-connection invoker) may call `callTool`; everyone else sends through Door.call, which checks the
// decision and records the call. The gate channel's `handler.callTool` is the agent entrance handing a call to
// the handler, which sends it through the door.
const oneDoor = {
  'no-restricted-syntax': ['error', {
    selector: "CallExpression[callee.property.name='callTool']:not([callee.object.property.name='handler'])",
    message: 'Send tool calls through the door (src/core/door.ts: Door.call with the decision that covers the call), not callTool directly.',
  }],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'e2e/node_modules/**', '.e2e/**', '.demo/**', '.bench/**', '**/*.mjs', '**/*.js'] },
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
    files: ['src/**/*.ts'],
    ignores: ['src/core/door.ts', 'src/mcp/registry.ts', 'src/mcp/connection.ts', 'src/cli/connectionInvoker.ts', 'src/gate/**'],
    rules: oneDoor,
  },
);
