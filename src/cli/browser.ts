/**
 * Opens a sign-in page for `plangate run --url`: with `$BROWSER` when it is set (a list of commands separated by `:`,
 * `;` on Windows, each given the URL, or with `%s` replaced by it, as other command-line tools read it), else with the
 * platform's opener. The URL is printed on stderr either way, so a terminal without a browser can still sign in.
 *
 * The URL comes from the server's metadata (its `authorization_endpoint`), so it is hostile text: only `http:` and
 * `https:` URLs are opened (core/base/externalUrl.ts), and never through anything that parses a command line — each
 * command is started directly (no shell, no `cmd /c`), the URL one argument of its own, percent-encoded so that no
 * opener reads it differently. On Windows the opener is `rundll32.exe url.dll,FileProtocolHandler`, named by its full
 * path so that a `rundll32.exe` in the current folder is not the one started.
 */
import { spawn } from 'node:child_process';
import { win32 } from 'node:path';
import { checkExternalUrl } from '../core/base/externalUrl';
import { safeText } from './safeText';
import { splitCommandLine } from './splitCommandLine';

/** Starts `words` detached, without a shell; resolves whether it could be started (not whether a page appeared). */
function launch(words: string[], env: NodeJS.ProcessEnv): Promise<boolean> {
  const [command, ...args] = words;
  if (!command) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { env, stdio: 'ignore', detached: true, shell: false, windowsHide: true });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}

/** What {@link browserLaunch} decided: the URL to open and the commands to try in order, or why nothing is opened. */
export type BrowserLaunch = { ok: true; url: string; commands: string[][] } | { ok: false; reason: string };

/**
 * The commands to try, in order, to open `raw` (each an argv: program, then its arguments, started without a shell),
 * or why it is not opened (not an http: or https: URL). `what` names the page in the refusal.
 */
export function browserLaunch(
  raw: string,
  what = 'sign-in page',
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): BrowserLaunch {
  const checked = checkExternalUrl(raw, what);
  if (!checked.ok) return { ok: false, reason: checked.reason };
  return { ok: true, url: checked.url, commands: browserCommands(checked.url, env, platform) };
}

/** The commands for a URL already checked by {@link browserLaunch}. */
function browserCommands(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[][] {
  const browser = env.BROWSER?.trim();
  if (browser) {
    return browser
      .split(platform === 'win32' ? ';' : ':')
      .map((entry) => entry.trim())
      .filter(Boolean)
      .flatMap((entry) => {
        const split = splitCommandLine(entry);
        if (!split.ok || split.words.length === 0) return [];
        return [split.words.some((w) => w.includes('%s')) ? split.words.map((w) => w.replaceAll('%s', url)) : [...split.words, url]];
      });
  }
  if (platform === 'darwin') return [['/usr/bin/open', url]];
  if (platform === 'win32') {
    const systemRoot = env.SystemRoot || env.SYSTEMROOT || 'C:\\Windows';
    return [[win32.join(systemRoot, 'System32', 'rundll32.exe'), 'url.dll,FileProtocolHandler', url]];
  }
  // Without a display, xdg-open would start a text browser on this very terminal.
  return env.DISPLAY || env.WAYLAND_DISPLAY ? [['xdg-open', url]] : [];
}

/**
 * Prints the sign-in URL and opens it in a browser if a browser can be started; rejects, saying why, when it is not an
 * http(s) URL.
 */
export async function openInBrowser(
  raw: string,
  server: string,
  print: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<void> {
  const name = safeText(server, { max: 100 });
  const plan = browserLaunch(raw, `sign-in page of '${name}'`, env, platform);
  // Not printed here: the sign-in fails with this message, which the run reports.
  if (!plan.ok) throw new Error(`${plan.reason} The server's sign-in metadata (its authorization_endpoint) needs fixing.`);
  for (const words of plan.commands) {
    if (await launch(words, env)) {
      print(`plangate: signing in to '${name}' in your browser. If no page opened, visit:\n  ${plan.url}`);
      return;
    }
  }
  print(`plangate: no browser could be opened (set $BROWSER to choose one). To sign in to '${name}', visit:\n  ${plan.url}`);
}
