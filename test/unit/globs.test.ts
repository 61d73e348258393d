import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstMatchingGlob, globMatcher, isOutsideWorkspace } from '../../src/core/base/globs';

test('absolute, home-relative and climbing globs are outside the workspace', () => {
  for (const g of ['/etc/passwd', '~/x', 'C:\\Windows\\x', '../sibling/**', 'src/../../x', '..'])
    assert.equal(isOutsideWorkspace(g), true, g);
  for (const g of ['src/**', './src/a.ts', 'src\\modules\\payroll\\**', '**/*.md', 'a..b/c']) assert.equal(isOutsideWorkspace(g), false, g);
});

test('globs match workspace-relative paths with picomatch semantics, dotfiles included', () => {
  const m = globMatcher(['src/modules/payroll/**', '*.md']);
  assert.equal(m('src/modules/payroll/a/b.ts'), true);
  assert.equal(m('src/modules/payroll/.env'), true);
  assert.equal(m('README.md'), true);
  assert.equal(m('docs/README.md'), false, '* stays within one segment');
  assert.equal(m('src/modules/hr/a.ts'), false);
});

test('a plain path matches the file itself or everything below a folder', () => {
  const m = globMatcher(['notes.md', 'src/generated']);
  assert.equal(m('notes.md'), true);
  assert.equal(m('src/generated/x/y.ts'), true);
  assert.equal(m('src/generated2/x.ts'), false);
});

test('outside globs match nothing, and backslashes read as slashes', () => {
  assert.equal(globMatcher(['../**'])('a.ts'), false);
  assert.equal(globMatcher(['src\\**'])('src/a.ts'), true);
  assert.equal(firstMatchingGlob(['docs/**', 'src/**'], 'src/x.ts'), 'src/**');
  assert.equal(firstMatchingGlob(['docs/**'], 'src/x.ts'), undefined);
});
