// Paths that leave the workspace without looking like it: URLs, home and environment references, Windows drive and
// UNC forms, percent-encoded dots, NUL bytes. Each must be classified outside, as a touches_files glob and as a step's
// path argument (what predictions and the checkpoint use); and nothing classified inside resolves outside the root.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import fc from 'fast-check';
import { runs } from './helpers/fastCheckSeed';
import { globMatcher, globOutsideReason, isOutsideWorkspace, normaliseGlob } from '../../src/core/base/globs';
import { toWorkspacePath, touchedPaths } from '../../src/core/files/predict';
import { walkBases } from '../../src/node/workspaceFiles';

const HOSTILE = [
  'file:///home/u/.bashrc',
  'file://localhost/etc/passwd',
  'FILE:///C:/Users/u/.ssh/id_rsa',
  'vscode-remote://ssh-remote+box/home/u/x',
  '%USERPROFILE%\\.ssh\\config',
  '%APPDATA%/Code/User/settings.json',
  '$HOME/.bashrc',
  '${HOME}/.bashrc',
  'src/${HOME}/x',
  'src/$(whoami)/x',
  '$env:USERPROFILE\\x',
  'C:foo',
  'C:foo\\bar.txt',
  'c:',
  'C:\\x',
  'C:/Windows/System32/drivers/etc/hosts',
  '\\\\server\\share\\x',
  '//server/share/x',
  '\\\\?\\C:\\x',
  '\\\\.\\pipe\\x',
  '~',
  '~user',
  '~user/.bashrc',
  '~/.bashrc',
  '%2e%2e/secret',
  '%2E%2E%2Fsecret',
  'src/%2e%2e/%2e%2e/secret',
  '..%2fsecret',
  '..%5csecret',
  '%252e%252e/secret',
  '%c0%ae%c0%ae/secret',
  'a.txt\u0000.png',
  '\u0000',
  'src/\u0000/../../x',
  '.. /secret',
  '... /secret',
  'src/. ./x',
  '\u2025/secret', // TWO DOT LEADER: ".." under NFKC
  '\uff0e\uff0e\uff0fsecret', // fullwidth "../"
];

describe('paths outside the workspace that look inside', () => {
  test('every hostile form is outside as a touches_files glob, with a reason, and matches nothing', () => {
    for (const raw of HOSTILE) {
      assert.equal(isOutsideWorkspace(raw), true, JSON.stringify(raw));
      assert.match(globOutsideReason(raw) ?? '', /\w/, JSON.stringify(raw));
      assert.deepEqual(walkBases([raw]), [], `${JSON.stringify(raw)} is never walked`);
      assert.equal(globMatcher([raw])('secret'), false);
    }
    for (const g of ['{src,..}/secret', '@(..)/secret', '{src,/etc}/passwd', 'src/{a,~/x}', '{C:/x,src}']) {
      assert.equal(isOutsideWorkspace(g), true, g);
    }
  });

  test('every hostile form is outside as a step path argument, so it is neither predicted inside nor checkpointed', () => {
    for (const root of ['/ws/root', 'C:\\ws\\root']) {
      for (const raw of HOSTILE) {
        const wp = toWorkspacePath(raw, root);
        assert.equal(wp.inside, false, `${JSON.stringify(raw)} against ${root}`);
        assert.ok(!wp.inside && wp.reason.length > 0);
      }
      const steps = HOSTILE.map((p) => ({ args: { path: p, content: 'x' } }));
      assert.deepEqual(touchedPaths(HOSTILE, steps, [], root), [], `nothing outside reaches the checkpoint (${root})`);
    }
  });

  test('a file:// URL is flagged like an absolute path, even when it names a file in the workspace', () => {
    assert.match(globOutsideReason('file:///ws/root/src/**') ?? '', /URL/);
    const wp = toWorkspacePath('file:///ws/root/src/a.ts', '/ws/root');
    assert.ok(!wp.inside);
    assert.match(wp.reason, /URL \(file:\)/);
  });

  test('ordinary workspace paths stay inside', () => {
    for (const g of [
      'src/**',
      './src/a.ts',
      'src\\modules\\payroll\\**',
      '**/*.md',
      'a..b/c',
      'app/routes/$id.tsx',
      'docs/100%.md',
      'My File.md',
      'src/{a,b}/*.ts',
      'src/a:b.txt',
    ]) {
      assert.equal(isOutsideWorkspace(g), false, g);
    }
    assert.deepEqual(toWorkspacePath('/ws/root/src/a.ts', '/ws/root'), { inside: true, path: 'src/a.ts' });
    assert.deepEqual(toWorkspacePath('C:\\ws\\root\\src\\a.ts', 'c:\\ws\\root'), { inside: true, path: 'src/a.ts' });
    assert.deepEqual(toWorkspacePath('app/routes/$id.tsx', '/ws/root'), { inside: true, path: 'app/routes/$id.tsx' });
  });
});

// --- Property: what is classified inside resolves inside -------------------------------------------------------

const PIECES = [
  'a',
  'b',
  'src',
  '.',
  '..',
  '/',
  '\\',
  '~',
  ':',
  'C:',
  'c:',
  '%',
  '%2e',
  '%2E',
  '%2f',
  '%5c',
  '%25',
  '$',
  '${',
  '$(',
  'HOME',
  '%USERPROFILE%',
  'file:',
  'file://',
  '//',
  '\\\\',
  '?',
  '*',
  '{',
  '}',
  ',',
  ' ',
  '\u0000',
  '\u2025',
  '\uff0e',
  '\uff0f',
  '\u00a0',
  '\t',
  'ws',
  'root',
  'x.txt',
];
const hostileString = fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((parts) => parts.join(''));
const anyPath = fc.oneof(hostileString, fc.string({ maxLength: 20 }), fc.string({ unit: 'grapheme', maxLength: 12 }));

/** Every way a reader could take the string: as given, with `\` as `/`, percent-decoded, NFKC-normalised. */
function readings(raw: string): string[] {
  const out = [raw, raw.replace(/\\/g, '/'), raw.normalize('NFKC')];
  let decoded = raw;
  for (let i = 0; i < 3; i++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      decoded = decoded.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    }
    out.push(decoded);
  }
  if (/^file:/i.test(raw)) out.push(raw.replace(/^file:\/*/i, '/'));
  return out;
}

function within(lib: typeof path.posix, root: string, p: string): boolean {
  const rel = lib.relative(root, lib.resolve(root, p));
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${lib.sep}`) && !lib.isAbsolute(rel));
}

function resolvesInside(raw: string, root: string, lib: typeof path.posix): boolean {
  return readings(raw).every((r) => !r.includes('\u0000') && within(lib, root, r) && within(path.win32, 'C:\\ws\\root', r));
}

describe('nothing classified inside resolves outside the root (property)', () => {
  test('touches_files globs', () => {
    fc.assert(
      fc.property(anyPath, (raw) => {
        if (isOutsideWorkspace(raw)) return true;
        const g = normaliseGlob(raw);
        return resolvesInside(raw, '/ws/root', path.posix) && resolvesInside(g, '/ws/root', path.posix);
      }),
      { numRuns: runs(5000) },
    );
  });

  test('step path arguments', () => {
    fc.assert(
      fc.property(anyPath, fc.constantFrom('/ws/root', 'C:\\ws\\root'), (raw, root) => {
        const wp = toWorkspacePath(raw, root);
        if (!wp.inside) return true;
        const lib = root.startsWith('/') ? path.posix : path.win32;
        const relativeForm = wp.path; // what the checkpoint joins to the root
        return (
          within(lib, root, relativeForm) &&
          (lib.isAbsolute(raw.trim()) ? within(lib, root, raw.trim()) : resolvesInside(raw.trim(), root, lib))
        );
      }),
      { numRuns: runs(5000) },
    );
  });
});
