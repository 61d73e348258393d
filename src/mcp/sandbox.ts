/**
 * Stdio servers in a sandbox, as VS Code runs them: a server entry's `sandboxEnabled` and `sandbox` (filesystem
 * `allowWrite` / `denyRead` / `denyWrite`, network `allowedDomains` / `deniedDomains`) become the settings file of
 * `@anthropic-ai/sandbox-runtime` (`srt`), which starts the server under bubblewrap with a filtering proxy on Linux
 * and under Seatbelt on macOS. Writes are denied except where allowed, reads allowed except where denied, the network
 * denied except the hosts allowed. Where no sandbox can be had, a server that asks for one does not start (see
 * {@link probeSandbox}); nothing here ever runs it unsandboxed by itself.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

/** mcp.json's `sandbox` block, as VS Code reads it (`IMcpSandboxConfiguration`). */
export interface SandboxRules {
  filesystem: { allowWrite: string[]; denyRead: string[]; denyWrite: string[] };
  network: { allowedDomains: string[]; deniedDomains: string[] };
}

/**
 * Why a server runs sandboxed: its entry says `"sandboxEnabled": true` (`requested`), or it comes from the workspace
 * and the user's `plangate.sandbox.workspaceServers` setting sandboxes those (`workspaceDefault`).
 */
export type SandboxReason = 'requested' | 'workspaceDefault';

/** The sandbox a resolved stdio server runs in: the rules in force (defaults merged, variables substituted). */
export interface ServerSandbox {
  reason: SandboxReason;
  rules: SandboxRules;
}

/** What VS Code always adds to a sandboxed server's rules (mcpSandboxService.ts): npm's cache and registry. */
export const VSCODE_DEFAULT_ALLOW_WRITE = ['~/.npm'] as const;
export const VSCODE_DEFAULT_ALLOWED_DOMAINS = ['*.npmjs.org'] as const;

/** What Plangate's own sandbox for workspace servers hides besides: the keys a cloned repository has no need of. */
export const WORKSPACE_DEFAULT_DENY_READ = ['~/.ssh', '~/.gnupg', '~/.aws'] as const;

/** A partial `sandbox` block as written in mcp.json. */
export interface SandboxBlock {
  filesystem?: { allowWrite?: string[]; denyRead?: string[]; denyWrite?: string[] };
  network?: { allowedDomains?: string[]; deniedDomains?: string[] };
}

/**
 * The rules a server runs under. `requested`: the entry's rules with VS Code's defaults merged in (`~/.npm` writable,
 * `*.npmjs.org` reachable), exactly as VS Code launches it — the workspace folder is writable only when `allowWrite`
 * says so. `workspaceDefault`: the workspace folder and `~/.npm` writable, `~/.ssh`, `~/.gnupg` and `~/.aws` hidden,
 * no network, plus whatever the entry's own `sandbox` allows (a repository's server reaches no host it does not name).
 */
export function sandboxRules(block: SandboxBlock | undefined, reason: SandboxReason, workspaceFolder?: string): SandboxRules {
  const allowWrite = new Set(block?.filesystem?.allowWrite ?? []);
  for (const p of VSCODE_DEFAULT_ALLOW_WRITE) allowWrite.add(p);
  if (reason === 'workspaceDefault' && workspaceFolder !== undefined) allowWrite.add(workspaceFolder);
  const denyRead = new Set(block?.filesystem?.denyRead ?? []);
  if (reason === 'workspaceDefault') for (const p of WORKSPACE_DEFAULT_DENY_READ) denyRead.add(p);
  const allowedDomains = new Set(block?.network?.allowedDomains ?? []);
  if (reason === 'requested') for (const d of VSCODE_DEFAULT_ALLOWED_DOMAINS) allowedDomains.add(d);
  return {
    filesystem: {
      allowWrite: [...allowWrite],
      denyRead: [...denyRead],
      denyWrite: [...(block?.filesystem?.denyWrite ?? [])],
    },
    network: { allowedDomains: [...allowedDomains], deniedDomains: [...(block?.network?.deniedDomains ?? [])] },
  };
}

/** The rules in words, for the Servers view's hover and the log. */
export function describeSandbox(sandbox: ServerSandbox): string[] {
  const { filesystem: fs, network: net } = sandbox.rules;
  const list = (items: readonly string[], none: string) => (items.length > 0 ? items.join(', ') : none);
  return [
    sandbox.reason === 'requested'
      ? 'Sandboxed: its entry says "sandboxEnabled": true'
      : 'Sandboxed: it comes from the workspace and plangate.sandbox.workspaceServers is on',
    `Writes only to: ${list(fs.allowWrite, 'nowhere')}`,
    ...(fs.denyWrite.length > 0 ? [`Never writes to: ${fs.denyWrite.join(', ')}`] : []),
    `Reads everything except: ${list(fs.denyRead, 'nothing denied')}`,
    `Network: ${net.allowedDomains.length > 0 ? `only ${net.allowedDomains.join(', ')}` : 'none'}${
      net.deniedDomains.length > 0 ? ` (never ${net.deniedDomains.join(', ')})` : ''
    }`,
  ];
}

/** Whether a sandbox can be had here, and if not why and what to install. */
export type SandboxSupport = { ok: true } | { ok: false; reason: string; fix: string };

/** Runs a program and says whether it exited 0 (within 5 s). */
export type Runner = (file: string, args: readonly string[]) => Promise<boolean>;

const run: Runner = (file, args) =>
  new Promise((resolve) => {
    execFile(file, [...args], { timeout: 5000 }, (err) => resolve(!err));
  });

/** The first `name` on `PATH` that is a file, or undefined. */
export function which(name: string, PATH: string): string | undefined {
  for (const dir of PATH.split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    if (existsSync(p)) return p;
  }
  return undefined;
}

/**
 * Whether sandboxed servers can start on this machine. Linux needs bubblewrap, socat and ripgrep on `PATH` (what
 * `srt` uses) and a bubblewrap that can make a network namespace (user namespaces allowed); macOS has Seatbelt
 * (`sandbox-exec`); Windows has no sandbox for stdio servers.
 */
export async function probeSandbox(platform: NodeJS.Platform, PATH: string, runner: Runner = run): Promise<SandboxSupport> {
  if (platform === 'darwin') {
    return which('sandbox-exec', PATH) || existsSync('/usr/bin/sandbox-exec')
      ? { ok: true }
      : { ok: false, reason: 'sandbox-exec (Seatbelt) was not found', fix: 'It ships with macOS at /usr/bin/sandbox-exec.' };
  }
  if (platform !== 'linux') {
    return {
      ok: false,
      reason: `there is no sandbox for local servers on ${platform === 'win32' ? 'Windows' : platform}`,
      fix: 'Run it in WSL or a Linux container, or remove "sandboxEnabled".',
    };
  }
  const install = 'Install them: sudo apt-get install bubblewrap socat ripgrep (Fedora: sudo dnf install bubblewrap socat ripgrep).';
  const missing = [
    ['bwrap', 'bubblewrap (bwrap)'],
    ['socat', 'socat'],
    ['rg', 'ripgrep (rg)'],
  ].filter(([bin]) => which(bin!, PATH) === undefined);
  if (missing.length > 0) {
    return {
      ok: false,
      reason: `${missing.map(([, label]) => label).join(', ')} ${missing.length > 1 ? 'are' : 'is'} not installed`,
      fix: install,
    };
  }
  const works = await runner(which('bwrap', PATH)!, ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-net', '--', 'true']);
  return works
    ? { ok: true }
    : {
        ok: false,
        reason: 'bubblewrap cannot make a sandbox here (user namespaces are turned off, or a container forbids them)',
        fix: 'Allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 an AppArmor profile for bwrap), or run VS Code outside this container.',
      };
}

/** The message of a server that asks for a sandbox where none can be had. */
export function describeNoSandbox(
  server: string,
  sandbox: ServerSandbox,
  support: { reason: string; fix: string },
  unsandboxedHint = 'To start it unsandboxed anyway, set "plangate.sandbox.allowUnsandboxed": true in your user settings (the log records it).',
): string {
  const why =
    sandbox.reason === 'requested'
      ? 'it asks for a sandbox ("sandboxEnabled": true, or --sandbox)'
      : 'plangate.sandbox.workspaceServers sandboxes workspace servers';
  return `Server '${server}' was not started: ${why}, but no sandbox can be had here — ${support.reason}. ${support.fix} ${unsandboxedHint}`;
}

/**
 * Where `srt`'s CLI is: `dist/srt.mjs` beside the bundle (the packaged extension and CLI), else the installed
 * package (tests run from the sources).
 */
export function srtCliPath(bundleDir: string): string {
  const bundled = path.join(bundleDir, 'srt.mjs');
  if (existsSync(bundled)) return bundled;
  try {
    return createRequire(path.join(bundleDir, 'x.js')).resolve('@anthropic-ai/sandbox-runtime/dist/cli.js');
  } catch {
    return bundled; // not there either: a sandboxed start fails naming this path
  }
}

/** How to start a sandboxed server: the program, its arguments and the variables to add. */
export interface SandboxLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** The settings file written for srt (the rules in srt's format). */
  settingsFile: string;
}

/**
 * Writes the rules as srt's settings file (in a fresh private directory) and returns the command that starts
 * `command args` inside the sandbox: `node srt.mjs --debug --settings FILE -- command args`. `--debug` is what makes
 * srt report the hosts its proxy refused (see {@link sandboxStderrLine}). In VS Code the extension host's executable
 * is Electron, which runs srt as Node with `ELECTRON_RUN_AS_NODE` (as VS Code itself does).
 */
export async function sandboxLaunch(
  rules: SandboxRules,
  command: string,
  args: readonly string[],
  srtPath: string,
  execPath: string = process.execPath,
): Promise<SandboxLaunch> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'plangate-sandbox-'));
  const settingsFile = path.join(dir, 'srt-settings.json');
  await writeFile(settingsFile, JSON.stringify(rules, null, 2), { mode: 0o600 });
  const env: Record<string, string> = { ELECTRON_RUN_AS_NODE: '1' };
  return { command: execPath, args: [srtPath, '--debug', '--settings', settingsFile, '--', command, ...args], env, settingsFile };
}

/**
 * Sorts a stderr line of a sandboxed server: srt's own chatter becomes `trace`, a connection its proxy refused becomes
 * a line that names the host, and a server's own error about something the sandbox refused (a write to a read-only
 * place, a path `denyRead` hides, a connection outside the proxy) gets a note saying which rule to widen.
 * The server's own lines carry `[stderr] `, as unsandboxed ones do.
 */
export function sandboxStderrLine(line: string, rules?: SandboxRules, home?: string): { level: 'info' | 'warn' | 'trace'; text: string } {
  const srt = /^\[SandboxDebug\]\s*(.*)$/.exec(line);
  if (srt) {
    const blocked = /^(?:Connection blocked to|HTTP request blocked to)\s+(\S+)/.exec(srt[1]!);
    if (blocked) {
      return {
        level: 'warn',
        text: `sandbox refused a connection to ${blocked[1]} (not in sandbox.network.allowedDomains; add the host there to allow it)`,
      };
    }
    return { level: 'trace', text: `[sandbox] ${srt[1]}` };
  }
  // srt prints the proxy's host list as indented JSON after a "[SandboxDebug] {" line.
  if (/^(\s+"allowedHosts": .*|\s+"[^"]*",?|\s*\],?|\})$/.test(line)) return { level: 'trace', text: `[sandbox] ${line.trim()}` };
  if (/\bEROFS\b|read-only file system/i.test(line)) {
    return {
      level: 'warn',
      text: `[stderr] ${line}  ← sandbox refused a write (add the path to sandbox.filesystem.allowWrite to allow it)`,
    };
  }
  const hidden = rules?.filesystem.denyRead
    .map((p) => (home !== undefined && (p === '~' || p.startsWith('~/')) ? path.join(home, p.slice(1)) : p))
    .find((p) => path.isAbsolute(p) && line.includes(p));
  if (hidden !== undefined) {
    return { level: 'warn', text: `[stderr] ${line}  ← the sandbox hides ${hidden} (sandbox.filesystem.denyRead)` };
  }
  if (/\b(ECONNREFUSED|ENETUNREACH|EAI_AGAIN)\b/.test(line)) {
    return {
      level: 'warn',
      text: `[stderr] ${line}  ← in the sandbox only the hosts of sandbox.network.allowedDomains are reachable, through its proxy`,
    };
  }
  return { level: 'info', text: `[stderr] ${line}` };
}
