// `plangate run` lists the files a plan changed, and `plangate revert` puts them back from the checkpoint the run took
// before its first step — spawned for real against the fixture server and @modelcontextprotocol/server-filesystem
// (a plan envelope read from a file by read_text_file, whose steps call its write_file and edit_file).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fixtureServer, runCli, workspace } from './helpers/cliHarness';
import { quoteCommandLine } from '../../src/cli/splitCommandLine';

const workspaces: ReturnType<typeof workspace>[] = [];
function ws() {
  const w = workspace();
  workspaces.push(w);
  return w;
}
after(() => {
  for (const w of workspaces) w.remove();
});

const SCAFFOLD_FILES = [
  'src/modules/payroll/OvertimeStartDaySelector.tsx',
  'src/modules/payroll/PTCHoursOverride.tsx',
  'src/modules/payroll/PayPeriodConfigurator.tsx',
  'src/modules/payroll/index.ts',
];

/** The lines of the "Files changed" section: [kind, path] pairs. */
function changedList(stdout: string): string[][] {
  return stdout
    .split('\n')
    .flatMap((l) => {
      const m = /^ {2}(created|modified|deleted) +(\S+)/.exec(l);
      return m ? [[m[1]!, m[2]!]] : [];
    })
    .sort((a, b) => (a[1]! < b[1]! ? -1 : 1));
}

describe('plangate run lists the files a plan changed; plangate revert restores them (fixture server)', { concurrency: 2 }, () => {
  it('scaffold: run lists the four created files and how to revert; revert --yes removes them and is recorded', async () => {
    const w = ws();
    const ledger = join(w.dir, 'ledger.jsonl');
    const run = await runCli(['run', '--server', await fixtureServer(w), '--tool', 'plan_scaffold', '--yes', '--ledger', ledger], {
      cwd: w.root,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Files changed in this folder \(4\):/);
    assert.deepEqual(
      changedList(run.stdout),
      SCAFFOLD_FILES.map((f) => ['created', f]),
    );
    assert.match(run.stdout, new RegExp(`Revert them with: plangate revert --ledger ${ledger.replace(/[/.]/g, '\\$&')} [0-9a-f]{8}\\n`));
    assert.ok(existsSync(join(w.dir, 'checkpoints')), 'the checkpoint is kept beside the ledger');
    for (const f of SCAFFOLD_FILES) assert.ok(existsSync(join(w.root, f)));

    const revert = await runCli(['revert', '--ledger', ledger, '--yes'], { cwd: w.root });
    assert.equal(revert.code, 0, revert.stderr);
    for (const f of SCAFFOLD_FILES) {
      assert.match(revert.stdout, new RegExp(`remove +${f.replace(/[/.]/g, '\\$&')} +\\(the plan created it\\)`));
      assert.ok(!existsSync(join(w.root, f)), `${f} was removed`);
    }
    assert.match(revert.stdout, /Reverted 4 file\(s\)\./);
    assert.ok(
      readFileSync(ledger, 'utf8')
        .split('\n')
        .some((l) => l.includes('"type":"reverted"')),
      'the revert is in the ledger',
    );
    const again = await runCli(['revert', '--ledger', ledger, '--yes'], { cwd: w.root });
    assert.equal(again.code, 0);
    assert.match(again.stdout, /Nothing to revert: the files of plan [0-9a-f]{8} \(plan_scaffold on fixture\.js\) already match/);
  });

  it('an edit of an existing file: run lists it modified; revert restores its bytes; a later edit is kept without --force', async () => {
    const w = ws();
    const ledger = join(w.dir, 'ledger.jsonl');
    writeFileSync(join(w.root, 'notes.txt'), 'hello world\n');
    const args = ['run', '--server', await fixtureServer(w), '--tool', 'plan_edit_dry_run', '--args', '{"path":"notes.txt"}', '--yes'];
    const run = await runCli([...args, '--ledger', ledger], { cwd: w.root });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(changedList(run.stdout), [['modified', 'notes.txt']]);
    assert.equal(readFileSync(join(w.root, 'notes.txt'), 'utf8'), 'hello plan world\n');

    // The user edits the file again after the plan: revert leaves it (a conflict) unless --force.
    writeFileSync(join(w.root, 'notes.txt'), 'hello plan world, and mine\n');
    const kept = await runCli(['revert', '--ledger', ledger, '--yes'], { cwd: w.root });
    assert.equal(kept.code, 1);
    assert.match(kept.stdout, /keep +notes\.txt +\(.*modified after the plan ran.*Pass --force/);
    assert.equal(readFileSync(join(w.root, 'notes.txt'), 'utf8'), 'hello plan world, and mine\n');
    const forced = await runCli(['revert', '--ledger', ledger, '--yes', '--force'], { cwd: w.root });
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(readFileSync(join(w.root, 'notes.txt'), 'utf8'), 'hello world\n');
  });

  it('asks before writing: without a terminal and without --yes nothing is reverted (exit 2)', async () => {
    const w = ws();
    const ledger = join(w.dir, 'ledger.jsonl');
    await runCli(['run', '--server', await fixtureServer(w), '--tool', 'plan_scaffold', '--yes', '--ledger', ledger], { cwd: w.root });
    const r = await runCli(['revert', '--ledger', ledger], { cwd: w.root });
    assert.equal(r.code, 2);
    assert.match(r.stdout, /remove +src\/modules\/payroll\/index\.ts/, 'it shows what it would do');
    assert.match(r.stderr, /no terminal to ask "Revert\?".*pass --yes/s);
    for (const f of SCAFFOLD_FILES) assert.ok(existsSync(join(w.root, f)), `${f} is still there`);
  });

  it('answers "Revert?" on a terminal: n reverts nothing, y reverts', async () => {
    const w = ws();
    const ledger = join(w.dir, 'ledger.jsonl');
    await runCli(['run', '--server', await fixtureServer(w), '--tool', 'plan_scaffold', '--yes', '--ledger', ledger], { cwd: w.root });
    const no = await runCli(['revert', '--ledger', ledger], { cwd: w.root, input: 'n\n', env: { PLANGATE_ASSUME_TTY: '1' } });
    assert.equal(no.code, 1);
    assert.match(no.stdout, /Revert\? \[y\/N\] Nothing was reverted\./);
    assert.ok(existsSync(join(w.root, SCAFFOLD_FILES[0]!)));
    const yes = await runCli(['revert', '--ledger', ledger], { cwd: w.root, input: 'y\n', env: { PLANGATE_ASSUME_TTY: '1' } });
    assert.equal(yes.code, 0, yes.stderr);
    assert.ok(!existsSync(join(w.root, SCAFFOLD_FILES[0]!)));
  });

  it('never deletes through a folder the user swapped for a link leading out of the workspace', async () => {
    const w = ws();
    const ledger = join(w.dir, 'ledger.jsonl');
    await runCli(['run', '--server', await fixtureServer(w), '--tool', 'plan_scaffold', '--yes', '--ledger', ledger], { cwd: w.root });
    // src/modules/payroll now leads to a folder outside the workspace holding files of the same names.
    const outside = join(w.dir, 'outside');
    renameSync(join(w.root, 'src/modules/payroll'), outside);
    symlinkSync(outside, join(w.root, 'src/modules/payroll'));
    const r = await runCli(['revert', '--ledger', ledger, '--yes', '--force'], { cwd: w.root });
    assert.notEqual(r.code, 0);
    assert.match(
      r.stdout,
      /keep +src\/modules\/payroll\/index\.ts +\(.*"src\/modules\/payroll" is now a link to a place outside the workspace/,
    );
    for (const f of SCAFFOLD_FILES) assert.ok(existsSync(join(outside, f.split('/').pop()!)), `${f} outside is untouched`);
  });

  it('picks the last plan run in this folder by default, refuses a plan that ran in another folder, names a missing plan', async () => {
    const w = ws();
    const ledger = join(w.dir, 'ledger.jsonl');
    const other = join(w.dir, 'other');
    mkdirSync(other);
    writeFileSync(join(w.root, 'notes.txt'), 'hello\n');
    await runCli(['run', '--server', await fixtureServer(w), '--tool', 'plan_scaffold', '--yes', '--ledger', ledger], { cwd: w.root });
    const second = await runCli(
      [
        'run',
        '--server',
        await fixtureServer(w),
        '--tool',
        'plan_edit_dry_run',
        '--args',
        '{"path":"notes.txt"}',
        '--yes',
        '--ledger',
        ledger,
      ],
      { cwd: w.root },
    );
    const id = /plangate revert --ledger \S+ ([0-9a-f]{8})/.exec(second.stdout)?.[1];
    assert.ok(id, second.stdout);
    // Default: the edit (the last plan run here), not the scaffold.
    const r = await runCli(['revert', '--ledger', ledger, '--yes'], { cwd: w.root });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`plan ${id} \\(plan_edit_dry_run on fixture\\.js\\)`));
    assert.equal(readFileSync(join(w.root, 'notes.txt'), 'utf8'), 'hello\n');
    assert.ok(existsSync(join(w.root, SCAFFOLD_FILES[0]!)), 'the earlier plan is left alone');

    const elsewhere = await runCli(['revert', '--ledger', ledger, id!, '--yes'], { cwd: other });
    assert.equal(elsewhere.code, 2);
    assert.match(elsewhere.stderr, /ran in .*root, not in this folder; run plangate revert there/);
    const none = await runCli(['revert', '--ledger', ledger, '--yes'], { cwd: other });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /records no plan that ran in this folder/);
    const missing = await runCli(['revert', '--ledger', ledger, 'ffffffff', '--yes'], { cwd: w.root });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /there is no plan ffffffff in /);
    const noLedger = await runCli(['revert', '--yes'], { cwd: w.root });
    assert.equal(noLedger.code, 2);
    assert.match(noLedger.stderr, /--ledger FILE is required/);
  });

  it('without --ledger run still lists the changes and says how to make a run revertable; nothing is left behind', async () => {
    const w = ws();
    const r = await runCli(['run', '--server', await fixtureServer(w), '--tool', 'plan_scaffold', '--yes'], { cwd: w.root });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(changedList(r.stdout).length, 4);
    assert.match(r.stdout, /To be able to revert a run, record it with --ledger FILE/);
    assert.ok(!existsSync(join(w.root, 'checkpoints')));
  });
});

describe('plangate run and revert against @modelcontextprotocol/server-filesystem', () => {
  it('a plan of write_file and edit_file steps: run lists both (the undeclared write flagged); revert restores both', async () => {
    const w = ws();
    const fsServer = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
    const ledger = join(w.dir, 'ledger.jsonl');
    writeFileSync(join(w.root, 'a.txt'), 'alpha\nbeta\n');
    const envelope = {
      kind: 'orchestrated_plan',
      version: '1',
      status: 'ok',
      instruction: 'Edit a.txt and write docs/new.md.',
      next_actions: [
        { tool: 'edit_file', args: { path: join(w.root, 'a.txt'), edits: [{ oldText: 'beta', newText: 'gamma' }] } },
        { tool: 'write_file', args: { path: join(w.root, 'docs', 'new.md'), content: '# new\n' } },
      ],
      safety: { writes_code: false, touches_files: ['a.txt'] },
    };
    mkdirSync(join(w.root, 'docs'));
    writeFileSync(join(w.dir, 'plan.json'), JSON.stringify(envelope));
    const server = quoteCommandLine([process.execPath, fsServer, w.dir]);
    const run = await runCli(
      [
        'run',
        '--server',
        server,
        '--tool',
        'read_text_file',
        '--args',
        JSON.stringify({ path: join(w.dir, 'plan.json') }),
        '--yes',
        '--ledger',
        ledger,
      ],
      { cwd: w.root },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(changedList(run.stdout), [
      ['modified', 'a.txt'],
      ['created', 'docs/new.md'],
    ]);
    assert.match(run.stdout, /docs\/new\.md +\(undeclared write\)/);
    assert.equal(readFileSync(join(w.root, 'a.txt'), 'utf8'), 'alpha\ngamma\n');

    const revert = await runCli(['revert', '--ledger', ledger, '--yes'], { cwd: w.root });
    assert.equal(revert.code, 0, revert.stderr);
    assert.match(revert.stdout, /restore +a\.txt/);
    assert.match(revert.stdout, /remove +docs\/new\.md/);
    assert.equal(readFileSync(join(w.root, 'a.txt'), 'utf8'), 'alpha\nbeta\n');
    assert.ok(!existsSync(join(w.root, 'docs/new.md')));
    assert.ok(existsSync(join(w.root, 'docs')), 'a folder that existed before the plan stays');
  });
});
