/**
 * Finds a ripgrep binary for the comparison in figure 4. `@vscode/ripgrep` (what VS Code bundles) downloads its
 * binary from GitHub in postinstall, which cannot work on a machine that reaches only npm and Debian, so the
 * bench uses Debian's `ripgrep` package (the same program, /usr/bin/rg), installing it with apt-get when it is
 * missing and we are root — like e2e/setup.sh does for chromium.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

export interface Ripgrep {
  path: string;
  version: string;
  /** Where it came from, for the output. */
  source: string;
}

function versionOf(path: string): string | undefined {
  const r = spawnSync(path, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.split('\n')[0]!.trim() : undefined;
}

function onPath(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v rg'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : undefined;
}

/** The ripgrep to use, or a reason there is none. */
export function findRipgrep(log: (line: string) => void): Ripgrep | { missing: string } {
  try {
    const rgPath = (createRequire(import.meta.url)('@vscode/ripgrep') as { rgPath: string }).rgPath;
    const version = versionOf(rgPath);
    if (version) return { path: rgPath, version, source: '@vscode/ripgrep' };
  } catch {
    // not installed (its postinstall needs GitHub): fall back to Debian's package
  }
  let path = onPath();
  if (!path && process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get']).status === 0) {
    log('ripgrep: not installed; apt-get install ripgrep (Debian package)…');
    try {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', timeout: 120_000 });
      execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'ripgrep'], {
        stdio: 'ignore',
        timeout: 120_000,
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    } catch (err) {
      return {
        missing: `ripgrep is not installed and apt-get install ripgrep failed (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
      };
    }
    path = onPath();
  }
  if (!path) return { missing: "ripgrep is not installed (neither @vscode/ripgrep nor an rg on PATH; install Debian's ripgrep package)" };
  const version = versionOf(path);
  if (!version) return { missing: `${path} does not run` };
  return {
    path,
    version,
    source: `Debian's ripgrep package (${path}) instead of @vscode/ripgrep, whose postinstall download from GitHub cannot work here`,
  };
}
