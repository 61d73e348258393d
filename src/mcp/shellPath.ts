/**
 * A PATH for stdio servers that works when VS Code was started from a desktop launcher: the GUI's PATH lacks the
 * directories that nvm, volta, homebrew, cargo… add in shell start-up files, so `npx`/`uvx`/`node` would not be
 * found. The SDK's stdio transport passes only its default variables plus ours, so the PATH is passed explicitly.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface AugmentedPathOptions {
  /** The environment to start from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** The home directory whose tool directories are added (default `os.homedir()`). */
  home?: string;
  /** The login shell asked for its PATH (default `$SHELL`); `null` skips asking a shell. */
  shell?: string | null;
  /** How long the shell may take (default 3000 ms); a slower shell is killed and ignored. */
  timeoutMs?: number;
  platform?: NodeJS.Platform;
}

const MARKER = '__PLANGATE_PATH__';

/**
 * The login shell's PATH, then the current PATH, then the usual tool directories that exist; duplicates removed.
 * Never rejects: a shell that fails or hangs only means its PATH is not used. On Windows, the current PATH.
 */
export async function computeAugmentedPath(options: AugmentedPathOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const current = env.PATH ?? env.Path ?? '';
  if (platform === 'win32') return current;
  const home = options.home ?? os.homedir();
  const shell = options.shell === undefined ? env.SHELL : options.shell;
  const fromShell = shell ? await loginShellPath(shell, env, options.timeoutMs ?? 3000) : undefined;
  const dirs = [...(fromShell ?? '').split(':'), ...current.split(':'), ...commonBinDirs(home, env).filter((d) => existsSync(d))];
  return [...new Set(dirs.filter((d) => d.length > 0))].join(':');
}

let cached: Promise<string> | undefined;

/** {@link computeAugmentedPath} for this process, computed once. */
export function augmentedPath(): Promise<string> {
  cached ??= computeAugmentedPath();
  return cached;
}

/** Directories where version managers and package managers put executables (whether or not they exist). */
export function commonBinDirs(home: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs = [
    path.join(home, '.local/bin'),
    path.join(home, '.volta/bin'),
    path.join(home, '.cargo/bin'),
    path.join(home, '.bun/bin'),
    '/usr/local/bin',
    '/opt/homebrew/bin',
    path.join(home, '.local/share/fnm/aliases/default/bin'),
  ];
  const nvm = env.NVM_BIN ?? newestNvmBin(env.NVM_DIR ?? path.join(home, '.nvm'));
  if (nvm) dirs.push(nvm);
  return dirs;
}

function newestNvmBin(nvmDir: string): string | undefined {
  let versions: string[];
  try {
    versions = readdirSync(path.join(nvmDir, 'versions/node')).filter((v) => /^v\d+\.\d+\.\d+$/.test(v));
  } catch {
    return undefined;
  }
  const key = (v: string) => v.slice(1).split('.').map(Number);
  versions.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
  });
  const newest = versions.at(-1);
  return newest ? path.join(nvmDir, 'versions/node', newest, 'bin') : undefined;
}

/** Runs `$SHELL -ilc` printing PATH between markers (start-up files may print noise around it). */
function loginShellPath(shell: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let out = '';
    let settled = false;
    const finish = (value: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    let child: ReturnType<typeof spawn>;
    try {
      // detached: an interactive shell must not take over our terminal's process group. cwd: the home folder, never
      // the workspace — an interactive shell's prompt hooks (direnv, a git-aware theme running `git status`, which
      // honours a repository's core.fsmonitor) would otherwise run code of an untrusted folder.
      child = spawn(shell, ['-ilc', `printf '%s' ${MARKER}; printenv PATH; printf '%s' ${MARKER}`], {
        stdio: ['ignore', 'pipe', 'ignore'],
        env,
        detached: true,
        cwd: os.homedir(),
      });
    } catch {
      resolve(undefined);
      return;
    }
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
      finish(undefined);
    }, timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.on('error', () => finish(undefined));
    child.on('close', () => {
      const start = out.indexOf(MARKER);
      const end = out.indexOf(MARKER, start + MARKER.length);
      finish(start >= 0 && end > start ? out.slice(start + MARKER.length, end).trim() : undefined);
    });
  });
}
