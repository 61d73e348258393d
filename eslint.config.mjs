// Lint: typescript-eslint's recommended rules, plus the house boundary: only src/ui (and src/extension.ts)
// may import `vscode`; core, mcp, cli, shared and webview stay free of it.
import tseslint from 'typescript-eslint';

const vscodeBan = {
  'no-restricted-imports': ['error', {
    paths: [{ name: 'vscode', message: 'Only src/ui and src/extension.ts may import vscode (see STYLE: zones by dependency).' }],
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
);
