// The problems of the user's `plangate.policy` (README: "Their problems appear in the Problems panel at their place in
// your user settings file (with a settings profile of its own, in the log)"). Plangate knows one user settings file;
// under a settings profile VS Code may read `plangate.policy` from another, and the file Plangate knows then holds
// another value (or none). That is what this test sets up: VS Code reads one value (the user setting, written as a user
// would), and a PolicySource is given a settings file that holds it (the control) or another value (the profile). The
// log is the source's log port, a stand-in that keeps the lines.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as vscodeTypes from 'vscode';
import type { ServerRegistry } from '../../src/mcp/registry';
import { PolicySource } from '../../src/ui/policy';
import { assert, suite, test } from './suite';

/** A policy with one problem VS Code's own settings check does not stop: an unknown key beside the rules. */
const WITH_PROBLEM = { rules: [], profileProbe: true };
const PROBLEM = `Unknown key 'profileProbe' is ignored (a policy has "rules").`;

async function until<T>(what: string, probe: () => T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

suite('policy problems of the user settings', () => {
  test('with a settings profile of its own (the settings file Plangate knows holds another value), they go to the log, not to the Problems panel', async ({
    vscode,
    api,
  }) => {
    const registry = (api as { registry: ServerRegistry }).registry;
    const config = () => vscode.workspace.getConfiguration('plangate');
    const read = () => config().inspect<unknown>('policy')?.globalValue;
    const before = read();
    const dir = mkdtempSync(join(tmpdir(), 'plangate-profile-'));
    /** A PolicySource whose known settings file holds `fileValue`: its log lines and the file's problems once read. */
    const judge = async (name: string, fileValue: unknown) => {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify({ 'editor.tabSize': 2, 'plangate.policy': fileValue }, null, 2));
      const lines: string[] = [];
      const keep = (text: string) => void lines.push(text);
      const log = {
        trace: keep,
        debug: keep,
        info: keep,
        warn: keep,
        error: keep,
        appendLine: keep,
      } as unknown as vscodeTypes.LogOutputChannel;
      const uri = vscode.Uri.file(file);
      const source = new PolicySource(registry, log, uri);
      try {
        await source.ready();
        return {
          logged: lines.filter((l) => l.includes(PROBLEM)),
          shown: vscode.languages.getDiagnostics(uri).map((d) => d.message),
        };
      } finally {
        source.dispose();
      }
    };
    try {
      await config().update('policy', WITH_PROBLEM, vscode.ConfigurationTarget.Global);
      await until('VS Code to read the policy', () => (JSON.stringify(read()) === JSON.stringify(WITH_PROBLEM) ? true : undefined));

      // The control: the file holds what VS Code reads, so the problem is shown at its place there, and not logged.
      const same = await judge('same', WITH_PROBLEM);
      assert.deepEqual(same.shown, [PROBLEM], 'the problem is in the Problems panel, on the settings file');
      assert.deepEqual(same.logged, [], 'nothing logged when the Problems panel shows it');

      // A profile of its own: the file Plangate knows holds another value; the problem goes to the log instead.
      const profile = await judge('profile', { rules: [] });
      assert.deepEqual(profile.shown, [], 'no problem is put on a file that does not hold the value');
      assert.deepEqual(profile.logged, [`Policy (setting plangate.policy): ${PROBLEM}`], 'the problem is in the log, naming the setting');

      // The same with no plangate.policy in that file at all.
      const none = await judge('none', undefined);
      assert.deepEqual(none.logged, [`Policy (setting plangate.policy): ${PROBLEM}`]);
    } finally {
      await config().update('policy', before, vscode.ConfigurationTarget.Global);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
