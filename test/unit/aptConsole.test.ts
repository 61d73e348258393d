// `npm test` and `npm run demo` install Debian packages as root when some are missing. They say so on the console
// first — which packages, why each, how they get root, where apt-get's output goes — and `npm test` does it in the
// foreground (e2e/setup.sh's background run only logs to a file). Run here with apt-get, id, sudo and dpkg replaced by
// stubs on a PATH of their own, so nothing is installed.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './helpers/fixture';

const dir = mkdtempSync(join(tmpdir(), 'plangate-apt-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const BASH = spawnSync('bash', ['-c', 'command -v bash'], { encoding: 'utf8' }).stdout.trim();

/** A PATH holding the real tools the scripts use and stubs for the rest; `root` decides what `id -u` says. */
function stubPath(name: string, options: { root: boolean; sudo: boolean }): string {
  const bin = join(dir, name);
  mkdirSync(bin);
  for (const tool of ['uname', 'dirname', 'mktemp', 'rm', 'tail', 'date', 'mkdir', 'env', 'cat']) {
    const real = spawnSync(BASH, ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    if (real) symlinkSync(real, join(bin, tool));
  }
  const stub = (tool: string, body: string) => {
    writeFileSync(join(bin, tool), `#!${BASH}\n${body}\n`);
    chmodSync(join(bin, tool), 0o755);
  };
  stub('apt-get', 'echo "APT-GET $*" >> "$TRACE"');
  stub('id', `echo ${options.root ? 0 : 1000}`);
  stub('dpkg', 'exit 1');
  if (options.sudo) stub('sudo', '[ "$1" = -n ] && [ "$2" = true ] && exit 0; echo "SUDO $1" >> "$TRACE"; "$@"');
  return bin;
}

/** Runs `script args` with the stub PATH; the console (stdout) and the stubs' trace go to one file, in order. */
function run(script: string, args: string[], bin: string): { code: number | null; console: string; stderr: string } {
  const trace = join(bin, '..', `${bin.split('/').pop()}.console`);
  writeFileSync(trace, '');
  const r = spawnSync(BASH, ['-c', `exec "$0" "$@" >> "$TRACE"`, BASH, join(REPO_ROOT, script), ...args], {
    env: { PATH: bin, TRACE: trace, HOME: dir, PLANGATE_E2E_HOME: join(dir, `${bin.split('/').pop()}-e2e`), CHROMIUM: '' },
    encoding: 'utf8',
  });
  return { code: r.status, console: readFileSync(trace, 'utf8'), stderr: r.stderr };
}

describe('installing Debian packages as root is said on the console first', { skip: process.platform !== 'linux' && 'Linux only' }, () => {
  it('scripts/installSandbox.sh names each package and why, says it runs apt-get as root, then runs it', () => {
    const r = run('scripts/installSandbox.sh', [], stubPath('sandbox-root', { root: true, sudo: false }));
    assert.equal(r.code, 0, r.stderr);
    const lines = r.console.split('\n');
    const said = lines.findIndex((l) => l.startsWith('[sandbox] installing 3 Debian package(s) with apt-get, as root'));
    const ran = lines.findIndex((l) => l.startsWith('APT-GET'));
    assert.ok(said >= 0 && ran > said, `the console says it before apt-get runs:\n${r.console}`);
    for (const pkg of ['bubblewrap', 'socat', 'ripgrep'])
      assert.ok(
        lines.some((l) => l.startsWith(`[sandbox]   ${pkg} — `)),
        `${pkg} and why`,
      );
    assert.match(r.console, /its output goes to \/\S+/);
    assert.match(r.console, /APT-GET install -y -qq --no-install-recommends bubblewrap socat ripgrep/);
  });

  it('through sudo it says "through sudo"; without root or sudo it says what to run, and runs nothing', () => {
    const viaSudo = run('scripts/installSandbox.sh', [], stubPath('sandbox-sudo', { root: false, sudo: true }));
    assert.equal(viaSudo.code, 0, viaSudo.stderr);
    assert.match(viaSudo.console, /with apt-get, as root through sudo:\n[\s\S]*SUDO apt-get/);
    const none = run('scripts/installSandbox.sh', [], stubPath('sandbox-user', { root: false, sudo: false }));
    assert.equal(none.code, 1);
    assert.match(
      none.stderr,
      /needs root to install bubblewrap socat ripgrep with apt-get — run: sudo apt-get install bubblewrap socat ripgrep/,
    );
    assert.doesNotMatch(none.console, /APT-GET/);
  });

  it('e2e/setup.sh --system-packages says what it installs for the end-to-end tests and why, then stops', () => {
    const r = run('e2e/setup.sh', ['--system-packages'], stubPath('setup-root', { root: true, sudo: false }));
    assert.equal(r.code, 0, r.stderr);
    const lines = r.console.split('\n');
    const said = lines.findIndex((l) => /^\[setup\] installing \d Debian package\(s\) with apt-get, as root/.test(l));
    const ran = lines.findIndex((l) => l.startsWith('APT-GET'));
    assert.ok(said >= 0 && ran > said, r.console);
    assert.ok(
      lines.some((l) => l.startsWith("[setup]   libkrb5-dev — headers that code-server's kerberos module")),
      r.console,
    );
    assert.ok(
      lines.some((l) => l.startsWith('[setup]   bubblewrap — ')),
      r.console,
    );
    assert.doesNotMatch(r.console, /\[setup\] node /, 'step 2 (Node 24) does not run');
  });

  it('npm test (scripts/test.sh) installs the packages in the foreground, before the end-to-end set-up goes to the background', () => {
    const script = readFileSync(join(REPO_ROOT, 'scripts/test.sh'), 'utf8');
    const foreground = script.indexOf('bash e2e/setup.sh --system-packages\n');
    const background = script.search(/bash e2e\/setup\.sh > \S+ 2>&1 &/);
    assert.ok(foreground > 0 && background > foreground, 'setup.sh --system-packages runs on the console before the background set-up');
    assert.ok(script.indexOf('bash scripts/installSandbox.sh') < foreground);
  });
});
