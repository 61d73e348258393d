// `plangate run --url` opening a sign-in page whose URL a hostile server chose (its authorization_endpoint): only
// http(s), each platform's opener started without a shell, the URL one argument of its own, in a form no command line
// reads differently; and a fake $BROWSER that records its argv proves that what arrives is exactly that.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserLaunch, openInBrowser } from '../../src/cli/browser';

const dir = mkdtempSync(join(tmpdir(), 'plangate-browser-'));
const CANARY = join(dir, 'canary').replaceAll('\\', '/');
/** Everything cmd.exe, a POSIX shell or an opener might read specially: | & ^ " % spaces, newlines, $IFS tricks. */
const HOSTILE = `https://evil.example/a|calc&whoami^x"y%25z%41 b\nc;mkdir$IFS$9${CANARY};?q=1&r=|&s="`;
const EXPECTED = `https://evil.example/a%7Ccalc&whoami%5Ex%22y%25z%41%20bc;mkdir$IFS$9${CANARY};?q=1&r=%7C&s=%22`;
const SHELLS = /^(cmd|cmd\.exe|sh|bash|zsh|dash|powershell|pwsh|start|\/c|-c)$/i;

after(() => rmSync(dir, { recursive: true, force: true }));

function commandsFor(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, raw = HOSTILE): string[][] {
  const plan = browserLaunch(raw, 'sign-in page', env, platform);
  assert.ok(plan.ok, plan.ok ? '' : plan.reason);
  assert.equal(plan.url, EXPECTED);
  for (const argv of plan.commands) {
    const withUrl = argv.filter((w) => w.includes('evil.example'));
    assert.ok(withUrl.length > 0, `the URL is given: ${JSON.stringify(argv)}`);
    for (const w of withUrl)
      assert.ok(w === EXPECTED || w === `--url=${EXPECTED}`, `the URL is one argument of its own: ${JSON.stringify(argv)}`);
    assert.ok(!argv.some((w) => SHELLS.test(w.split(/[\\/]/).pop()!) || SHELLS.test(w)), `no shell in ${JSON.stringify(argv)}`);
  }
  return plan.commands;
}

describe('browserLaunch: each platform opens the URL as one argument, with no shell', () => {
  it('Windows: rundll32 url.dll,FileProtocolHandler by its full path, never cmd /c start', () => {
    assert.deepEqual(commandsFor({ SystemRoot: 'C:\\Windows' }, 'win32'), [
      ['C:\\Windows\\System32\\rundll32.exe', 'url.dll,FileProtocolHandler', EXPECTED],
    ]);
    // Without SystemRoot, the usual folder: never a bare name that the current folder could answer.
    assert.equal(commandsFor({}, 'win32')[0]![0], 'C:\\Windows\\System32\\rundll32.exe');
  });

  it('macOS: /usr/bin/open URL', () => {
    assert.deepEqual(commandsFor({}, 'darwin'), [['/usr/bin/open', EXPECTED]]);
  });

  it('Linux: xdg-open URL with a display, nothing without one (the URL is printed instead)', () => {
    assert.deepEqual(commandsFor({ DISPLAY: ':0' }, 'linux'), [['xdg-open', EXPECTED]]);
    assert.deepEqual(commandsFor({ WAYLAND_DISPLAY: 'wayland-0' }, 'linux'), [['xdg-open', EXPECTED]]);
    assert.deepEqual(commandsFor({}, 'linux'), []);
  });

  it('$BROWSER: each entry split into words (not run by a shell), the URL appended or put in place of %s', () => {
    assert.deepEqual(commandsFor({ BROWSER: 'firefox --new-tab:"/opt/my browser/run" --url=%s -x %s' }, 'linux'), [
      ['firefox', '--new-tab', EXPECTED],
      ['/opt/my browser/run', `--url=${EXPECTED}`, '-x', EXPECTED],
    ]);
    // On Windows the list is separated by ';', so a drive letter's ':' does not split a path.
    assert.deepEqual(commandsFor({ BROWSER: '"C:\\Program Files\\Firefox\\firefox.exe" -url %s;edge' }, 'win32'), [
      ['C:\\Program Files\\Firefox\\firefox.exe', '-url', EXPECTED],
      ['edge', EXPECTED],
    ]);
  });

  it('refuses file:, javascript:, vscode:, ms-msdt: and search-ms: URLs on every platform, with a message that says why', () => {
    for (const platform of ['win32', 'darwin', 'linux'] as const) {
      for (const raw of [
        'file:///C:/Windows/System32/calc.exe',
        'javascript:alert(1)',
        'vscode://ext/cmd',
        'ms-msdt:/id PCW',
        'search-ms:query=x',
      ]) {
        const plan = browserLaunch(raw, "sign-in page of 'acme'", { BROWSER: 'firefox', DISPLAY: ':0' }, platform);
        assert.equal(plan.ok, false, `${raw} on ${platform}`);
        assert.match(
          plan.ok ? '' : plan.reason,
          /^Plangate did not open the [a-z-]+: sign-in page of 'acme': it opens only http: and https: links from servers\.$/,
        );
      }
    }
  });
});

describe('openInBrowser starts $BROWSER without a shell', () => {
  const recorder = join(dir, 'recordArgv.mjs');
  writeFileSync(
    recorder,
    "import { writeFileSync } from 'node:fs';\nwriteFileSync(process.env.RECORD_ARGV, JSON.stringify(process.argv.slice(2)));\n",
  );
  const browser = `"${process.execPath}" "${recorder}" --url=%s --again %s`;

  async function recorded(file: string): Promise<unknown> {
    for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
    return JSON.parse(readFileSync(file, 'utf8'));
  }

  it('the fake browser receives the URL unchanged, as the arguments it was given, and no shell ran the text in it', async () => {
    const record = join(dir, 'argv.json');
    const printed: string[] = [];
    await openInBrowser(HOSTILE, 'acme', (l) => printed.push(l), { ...process.env, BROWSER: browser, RECORD_ARGV: record });
    assert.deepEqual(await recorded(record), [`--url=${EXPECTED}`, '--again', EXPECTED]);
    assert.equal(existsSync(CANARY), false, 'a shell would have run the mkdir in the URL');
    assert.match(
      printed.join('\n'),
      new RegExp(
        `signing in to 'acme' in your browser\\. If no page opened, visit:\\n  ${EXPECTED.replace(/[$^|?.*+()[\]{}\\]/g, '\\$&')}$`,
      ),
    );
  });

  it("$BROWSER's %s is replaced by the URL as one argument, after the entry is split: quotes and ':' in the URL split nothing", async () => {
    // A single quote stays as it is in a URL's path (new URL encodes spaces and double quotes, not '): were %s replaced
    // before the entry is split into words, the quote would open a quoted word and swallow the arguments after it.
    const raw = "https://evil.example/it's/a'b --extra 'c";
    const url = "https://evil.example/it's/a'b%20--extra%20'c";
    const record = join(dir, 'argv-quote.json');
    await openInBrowser(raw, 'acme', () => {}, {
      ...process.env,
      BROWSER: `"${process.execPath}" "${recorder}" -a %s -b`,
      RECORD_ARGV: record,
    });
    assert.deepEqual(await recorded(record), ['-a', url, '-b']);
  });

  it('a file: URL is refused before anything starts: the sign-in fails saying why and what needs fixing', async () => {
    const record = join(dir, 'argv-refused.json');
    const printed: string[] = [];
    await assert.rejects(
      openInBrowser('file:///etc/passwd', 'acme', (l) => printed.push(l), { ...process.env, BROWSER: browser, RECORD_ARGV: record }),
      /^Error: Plangate did not open the file: sign-in page of 'acme': it opens only http: and https: links from servers\. The server's sign-in metadata \(its authorization_endpoint\) needs fixing\.$/,
    );
    assert.deepEqual(printed, [], 'no URL printed to visit');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(existsSync(record), false, 'nothing was started');
  });
});
