/**
 * Opens a sign-in page for `plangate run --url`: with `$BROWSER` when it is set (a `:`-separated list of commands,
 * each given the URL, or with `%s` replaced by it, as other command-line tools read it), else with the platform's
 * opener. The URL is printed on stderr either way, so a terminal without a browser can still sign in.
 */
import { spawn } from 'node:child_process';
import { splitCommandLine } from './splitCommandLine';

/** Starts `words` detached; resolves whether it could be started (not whether a page appeared). */
function launch(words: string[]): Promise<boolean> {
  const [command, ...args] = words;
  if (!command) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: 'ignore', detached: true });
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

/** The commands to try, in order, for `url`. */
export function browserCommands(url: string, env: NodeJS.ProcessEnv = process.env, platform = process.platform): string[][] {
  const browser = env.BROWSER?.trim();
  if (browser) {
    return browser
      .split(':')
      .map((entry) => entry.trim())
      .filter(Boolean)
      .flatMap((entry) => {
        const split = splitCommandLine(entry);
        if (!split.ok || split.words.length === 0) return [];
        return [split.words.some((w) => w.includes('%s')) ? split.words.map((w) => w.replaceAll('%s', url)) : [...split.words, url]];
      });
  }
  if (platform === 'darwin') return [['open', url]];
  if (platform === 'win32') return [['cmd', '/c', 'start', '""', url.replace(/&/g, '^&')]];
  // Without a display, xdg-open would start a text browser on this very terminal.
  return env.DISPLAY || env.WAYLAND_DISPLAY ? [['xdg-open', url]] : [];
}

/** Prints the sign-in URL and opens it in a browser if one can be started. */
export async function openInBrowser(url: string, server: string, print: (line: string) => void): Promise<void> {
  for (const words of browserCommands(url)) {
    if (await launch(words)) {
      print(`plangate: signing in to '${server}' in your browser. If no page opened, visit:\n  ${url}`);
      return;
    }
  }
  print(`plangate: no browser could be opened (set $BROWSER to choose one). To sign in to '${server}', visit:\n  ${url}`);
}
