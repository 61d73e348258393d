// Predicted diffs before approval: write-shaped steps, dry-run capable tools called with their flag, and the unified
// diffs they return — against the real @modelcontextprotocol/server-filesystem and the fixture's edit_text.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { classifyResult } from '../../src/core/plan/classify';
import {
  applyFilePatch,
  dryRunFlag,
  parseUnifiedDiff,
  predictedAfter,
  predictFromDryRun,
  predictFromWrite,
  predictStep,
  stepPaths,
  toWorkspacePath,
  touchedPaths,
  withDryRun,
  writeShape,
  type PredictedFile,
} from '../../src/core/files/predict';
import type { ToolResult } from '../../src/core/base/toolResult';
import { startFixtureStdio, type StdioFixture } from './helpers/fixture.js';

const SERVER_FILESYSTEM = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

function onlyFile(result: ReturnType<typeof predictFromDryRun>): PredictedFile {
  assert.ok('files' in result, `a diff was parsed: ${JSON.stringify(result)}`);
  assert.equal(result.files.length, 1);
  return result.files[0]!;
}

describe('predicted diffs from @modelcontextprotocol/server-filesystem', () => {
  let ws: string;
  let other: string;
  let roots: string[];
  let client: Client;
  let tools: Map<string, Tool>;

  before(async () => {
    const base = mkdtempSync(join(tmpdir(), 'plangate-predict-'));
    ws = join(base, 'ws');
    other = join(base, 'other');
    mkdirSync(ws);
    mkdirSync(other);
    roots = [ws, realpathSync(ws)];
    // Two allowed directories: the workspace, and one outside it.
    const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER_FILESYSTEM, ws, other], stderr: 'pipe' });
    client = new Client({ name: 'plangate-test', version: '0.0.0' }, { capabilities: {} });
    await client.connect(transport);
    tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
  });
  after(async () => {
    await client?.close();
    rmSync(join(ws, '..'), { recursive: true, force: true });
  });

  test('edit_file is dry-run capable; its dry run writes nothing and predicts exactly what the real edit writes', async () => {
    const file = join(ws, 'notes.md');
    // Backticks in the file make the server fence its diff with four; no newline at the end.
    const original = 'hello world\nkeep ```code``` here\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nlast line';
    writeFileSync(file, original);
    const step = {
      tool: 'edit_file',
      args: {
        path: file,
        edits: [
          { oldText: 'hello world', newText: 'hello MCP' },
          { oldText: 'last line', newText: 'last line\nand one more' },
        ],
      },
    };

    assert.equal(dryRunFlag(tools.get('edit_file')!.inputSchema), 'dryRun');
    const prediction = predictStep(step, tools.get('edit_file'), roots);
    assert.equal(prediction.kind, 'dryRun');
    assert.ok(prediction.kind === 'dryRun');
    assert.equal(prediction.args.dryRun, true);
    assert.equal((step.args as Record<string, unknown>).dryRun, undefined, "the step's own arguments are unchanged");

    const result = await call(client, 'edit_file', prediction.args);
    assert.notEqual(result.isError, true);
    assert.match(String((result.content as { text: string }[])[0]!.text), /^````diff\n/, 'the server used a longer fence');
    assert.equal(readFileSync(file, 'utf8'), original, 'the dry run wrote nothing');

    const predicted = onlyFile(predictFromDryRun(result, roots));
    assert.equal(predicted.path, 'notes.md', 'the absolute path became workspace-relative');
    assert.equal(predicted.inside, true);
    assert.equal(predicted.source, 'dryRun');
    assert.equal(predicted.change, 'modify');
    const after = predictedAfter(predicted, readFileSync(file, 'utf8'));
    assert.ok('text' in after, JSON.stringify(after));

    const real = await call(client, 'edit_file', step.args);
    assert.notEqual(real.isError, true);
    assert.equal(readFileSync(file, 'utf8'), after.text, 'the prediction equals what the real edit wrote');
  });

  test('a relative path and a whitespace-insensitive match predict what the server writes', async () => {
    writeFileSync(join(ws, 'code.py'), 'def f():\n    if x:\n        return 1\n    return 2\n');
    const args = { path: 'code.py', edits: [{ oldText: 'if x:\n    return 1', newText: 'if x and y:\n    return 10' }] };
    const prediction = predictStep({ tool: 'edit_file', args }, tools.get('edit_file'), roots);
    assert.ok(prediction.kind === 'dryRun');
    const predicted = onlyFile(predictFromDryRun(await call(client, 'edit_file', prediction.args), roots));
    assert.equal(predicted.path, 'code.py');
    const after = predictedAfter(predicted, readFileSync(join(ws, 'code.py'), 'utf8'));
    assert.ok('text' in after);
    await call(client, 'edit_file', args);
    assert.equal(readFileSync(join(ws, 'code.py'), 'utf8'), after.text);
  });

  test('a dry run that would fail says why before approval, and writes nothing', async () => {
    writeFileSync(join(ws, 'b.txt'), 'alpha\n');
    const prediction = predictStep(
      { tool: 'edit_file', args: { path: join(ws, 'b.txt'), edits: [{ oldText: 'omega', newText: 'x' }] } },
      tools.get('edit_file'),
      roots,
    );
    assert.ok(prediction.kind === 'dryRun');
    const outcome = predictFromDryRun(await call(client, 'edit_file', prediction.args), roots);
    assert.ok('error' in outcome);
    assert.match(outcome.error, /dry run failed: .*Could not find exact match/s);
    assert.equal(readFileSync(join(ws, 'b.txt'), 'utf8'), 'alpha\n');
  });

  test('an edit in another allowed folder is flagged as outside the workspace', async () => {
    writeFileSync(join(other, 'c.txt'), 'one\n');
    const prediction = predictStep(
      { tool: 'edit_file', args: { path: join(other, 'c.txt'), edits: [{ oldText: 'one', newText: 'two' }] } },
      tools.get('edit_file'),
      roots,
    );
    assert.ok(prediction.kind === 'dryRun');
    const predicted = onlyFile(predictFromDryRun(await call(client, 'edit_file', prediction.args), roots));
    assert.equal(predicted.inside, false);
    assert.match(predicted.outsideReason!, /outside the workspace/);
    assert.match(predicted.path, /other[/\\]c\.txt$/);
  });

  test('write_file is write-shaped: its arguments are the prediction, and the real write matches it', async () => {
    const content = 'fresh\ncontent\n';
    const step = { tool: 'write_file', args: { path: join(ws, 'sub', 'new.txt'), content } };
    mkdirSync(join(ws, 'sub'), { recursive: true });
    const prediction = predictStep(step, tools.get('write_file'), roots);
    assert.ok(prediction.kind === 'write', JSON.stringify(prediction));
    assert.deepEqual(prediction.path, { inside: true, path: 'sub/new.txt' });
    const predicted = predictFromWrite(prediction, false);
    assert.equal(predicted.change, 'create');
    const after = predictedAfter(predicted, undefined);
    assert.ok('text' in after);
    await call(client, 'write_file', step.args);
    assert.equal(readFileSync(join(ws, 'sub', 'new.txt'), 'utf8'), after.text);
  });

  test('read-only and multi-file tools predict nothing', () => {
    for (const [tool, args] of [
      ['read_text_file', { path: 'a.txt' }],
      ['list_directory', { path: '.' }],
      ['move_file', { source: 'a', destination: 'b' }],
    ] as const) {
      assert.equal(predictStep({ tool, args }, tools.get(tool), roots).kind, 'none', tool);
    }
    // …but the files a step names are still known (for the checkpoint).
    assert.deepEqual(stepPaths({ args: { source: 'a.txt', destination: join(ws, 'd/b.txt') } }, roots), [
      { inside: true, path: 'a.txt' },
      { inside: true, path: 'd/b.txt' },
    ]);
  });
});

describe('predicted diffs from the fixture server', () => {
  let fx: StdioFixture;
  let tools: Map<string, Tool>;
  before(async () => {
    fx = await startFixtureStdio();
    tools = new Map((await fx.client.listTools()).tools.map((t) => [t.name, t]));
  });
  after(() => fx.close());

  test("plan_edit_dry_run's edit_text step is predicted by a dry run that equals the real edit", async () => {
    writeFileSync(join(fx.root, 'greeting.txt'), 'hello\nworld\n');
    const planned = classifyResult(await call(fx.client, 'plan_edit_dry_run', { path: 'greeting.txt' }));
    assert.equal(planned.kind, 'plan');
    assert.ok(planned.kind === 'plan');
    const step = planned.plan.next_actions[0]!;
    assert.equal(step.tool, 'edit_text');

    const prediction = predictStep(step, tools.get('edit_text'), fx.root);
    assert.ok(prediction.kind === 'dryRun');
    const result = await call(fx.client, 'edit_text', prediction.args);
    assert.equal(readFileSync(join(fx.root, 'greeting.txt'), 'utf8'), 'hello\nworld\n', 'nothing written before approval');
    const predicted = onlyFile(predictFromDryRun(result, fx.root));
    assert.equal(predicted.path, 'greeting.txt');
    const after = predictedAfter(predicted, 'hello\nworld\n');
    assert.ok('text' in after);
    assert.equal(after.text, 'hello plan\nworld\n');

    await call(fx.client, 'edit_text', step.args);
    assert.equal(readFileSync(join(fx.root, 'greeting.txt'), 'utf8'), after.text);
  });

  test('write_file_step is write-shaped; create_screen and succeed predict nothing', () => {
    const write = predictStep(
      { tool: 'write_file_step', args: { path: 'docs/a.md', content: '# A\n' } },
      tools.get('write_file_step'),
      fx.root,
    );
    assert.deepEqual(write, { kind: 'write', path: { inside: true, path: 'docs/a.md' }, newContent: '# A\n' });
    assert.equal(predictStep({ tool: 'create_screen', args: { screen: 'Payroll' } }, tools.get('create_screen'), fx.root).kind, 'none');
    assert.equal(predictStep({ tool: 'succeed', args: { message: 'x' } }, tools.get('succeed'), fx.root).kind, 'none');
  });
});

describe('write-shaped steps', () => {
  const shaped = (tool: string, args: Record<string, unknown>, extra?: Parameters<typeof writeShape>[1]) =>
    writeShape({ tool, args }, extra);

  test('a path and full content under the usual names', () => {
    assert.deepEqual(shaped('write_file', { path: 'a.txt', content: 'x' }), { path: 'a.txt', newContent: 'x' });
    assert.deepEqual(shaped('save', { file_path: 'a.txt', contents: '' }), { path: 'a.txt', newContent: '' }, 'empty content is content');
    assert.deepEqual(shaped('create_file', { path: 'a.txt', text: 'y' }), { path: 'a.txt', newContent: 'y' });
    assert.deepEqual(shaped('writeFile', { filePath: 'a.txt', newContent: 'z', overwrite: true }), { path: 'a.txt', newContent: 'z' });
  });

  test('not whole-file writes: appends, edits, reads, positions, encodings, ambiguity, read-only tools', () => {
    assert.equal(shaped('append_file', { path: 'a', content: 'x' }), undefined);
    assert.equal(shaped('appendToFile', { path: 'a', content: 'x' }), undefined);
    assert.equal(shaped('write_file', { path: 'a', content: 'x', append: true }), undefined);
    assert.equal(shaped('write_file', { path: 'a', content: 'x', mode: 'append' }), undefined);
    assert.equal(shaped('write_file', { path: 'a', content: 'x', line: 3 }), undefined);
    assert.equal(shaped('write_file', { path: 'a', content: 'eA==', encoding: 'base64' }), undefined);
    assert.equal(shaped('write_file', { path: 'a', content: 'x', encoding: 'utf-8' })?.newContent, 'x');
    assert.equal(shaped('search_text', { path: 'a', text: 'x' }), undefined);
    assert.equal(shaped('write_file', { path: 'a', file: 'b', content: 'x' }), undefined, 'two paths: ambiguous');
    assert.equal(shaped('write_file', { path: 'a', content: 'x', text: 'y' }), undefined, 'two contents: ambiguous');
    assert.equal(shaped('write_file', { path: 'a', content: 42 }), undefined);
    assert.equal(shaped('write_file', { path: '', content: 'x' }), undefined);
    assert.equal(shaped('render', { path: 'a', content: 'x' }, { name: 'render', annotations: { readOnlyHint: true } }), undefined);
    assert.equal(shaped('widget_writer', { path: 'a', content: 'x' })?.path, 'a', '"get" inside a word does not count');
  });

  test('inherited and __proto__ keys are data, never found through the prototype', () => {
    const args = JSON.parse('{"__proto__": {"path": "evil", "content": "x"}}') as Record<string, unknown>;
    assert.equal(shaped('write_file', args), undefined);
    const copy = withDryRun(JSON.parse('{"__proto__": {"a": 1}, "path": "p"}') as Record<string, unknown>, 'dry_run');
    assert.deepEqual(Object.keys(copy), ['__proto__', 'path', 'dry_run']);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  });
});

describe('dry-run capable tools', () => {
  test('a boolean dryRun or dry_run property', () => {
    assert.equal(dryRunFlag({ type: 'object', properties: { dryRun: { type: 'boolean', default: false } } }), 'dryRun');
    assert.equal(dryRunFlag({ type: 'object', properties: { dry_run: { type: ['boolean', 'null'] } } }), 'dry_run');
    assert.equal(dryRunFlag({ type: 'object', properties: { dry_run: { anyOf: [{ type: 'boolean' }, { type: 'null' }] } } }), 'dry_run');
    assert.equal(dryRunFlag({ type: 'object', properties: { dryRun: { type: 'string' } } }), undefined);
    assert.equal(dryRunFlag({ type: 'object', properties: { preview: { type: 'boolean' } } }), undefined);
    assert.equal(dryRunFlag(undefined), undefined);
    assert.equal(dryRunFlag({ properties: JSON.parse('{"__proto__": {"dryRun": {"type": "boolean"}}}') }), undefined);
  });

  test('a step that already asks for a dry run writes nothing and needs no prediction', () => {
    const tool = { name: 'edit', inputSchema: { type: 'object', properties: { dryRun: { type: 'boolean' } } } };
    assert.deepEqual(predictStep({ tool: 'edit', args: { path: 'a', dryRun: true } }, tool, '/ws'), { kind: 'none' });
    assert.deepEqual(predictStep({ tool: 'edit', args: { path: 'a' } }, tool, '/ws'), {
      kind: 'dryRun',
      flag: 'dryRun',
      args: { path: 'a', dryRun: true },
    });
  });
});

describe('unified diffs as tools return them', () => {
  const patch = createTwoFilesPatch('/ws/a.txt', '/ws/a.txt', 'hello world\nline2\n', 'hello MCP\nline2\n', 'original', 'modified');

  test('the exact server-filesystem format: fence, Index:, ===, tab-suffixed ---/+++', () => {
    const text = `\`\`\`diff\n${patch}\`\`\`\n\n`;
    assert.match(text, /--- \/ws\/a\.txt\toriginal/);
    const parsed = parseUnifiedDiff(text);
    assert.ok('files' in parsed);
    assert.deepEqual(
      parsed.files.map((f) => [f.path, f.change, f.hunks]),
      [['/ws/a.txt', 'modify', 1]],
    );
    const applied = applyFilePatch('hello world\nline2\n', parsed.files[0]!.patch);
    assert.deepEqual(applied, { text: 'hello MCP\nline2\n' });
    const file = onlyFile(predictFromDryRun({ content: [{ type: 'text', text }] }, '/ws'));
    assert.equal(file.path, 'a.txt');
  });

  test('a longer fence holds shorter ones; CRLF text; prose around the block', () => {
    const inner = createTwoFilesPatch('a.md', 'a.md', 'x\n```js\n', 'y\n```js\n');
    const parsed = parseUnifiedDiff(`Here is the diff:\r\n\r\n\`\`\`\`diff\r\n${inner.replace(/\n/g, '\r\n')}\`\`\`\`\r\n\r\nDone.`);
    assert.ok('files' in parsed);
    assert.equal(parsed.files[0]!.path, 'a.md');
    assert.deepEqual(applyFilePatch('x\n```js\n', parsed.files[0]!.patch), { text: 'y\n```js\n' });
  });

  test('bare, git-style, created, deleted and multi-file diffs', () => {
    const git = [
      'diff --git a/src/x.ts b/src/x.ts',
      'index 1111111..2222222 100644',
      '--- a/src/x.ts',
      '+++ b/src/x.ts',
      '@@ -1 +1 @@',
      '-old',
      '+new',
      'diff --git a/docs/new.md b/docs/new.md',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/docs/new.md',
      '@@ -0,0 +1 @@',
      '+hi',
      'diff --git a/gone.txt b/gone.txt',
      'deleted file mode 100644',
      '--- a/gone.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      '',
    ].join('\n');
    const parsed = parseUnifiedDiff(git);
    assert.ok('files' in parsed, JSON.stringify(parsed));
    assert.deepEqual(
      parsed.files.map((f) => [f.path, f.change]),
      [
        ['src/x.ts', 'modify'],
        ['docs/new.md', 'create'],
        ['gone.txt', 'delete'],
      ],
    );
    assert.deepEqual(applyFilePatch('', parsed.files[1]!.patch), { text: 'hi\n' });
    assert.deepEqual(
      predictedAfter({ path: 'gone.txt', inside: true, source: 'dryRun', change: 'delete', patch: parsed.files[2]!.patch }, 'bye\n'),
      { text: '' },
    );
  });

  test('an edit that changes nothing is a file with no hunks', () => {
    const parsed = parseUnifiedDiff(
      `\`\`\`diff\n${createTwoFilesPatch('/ws/a', '/ws/a', 'same\n', 'same\n', 'original', 'modified')}\`\`\`\n`,
    );
    assert.ok('files' in parsed);
    assert.equal(parsed.files[0]!.hunks, 0);
  });

  test('text that is not a diff, and a patch that no longer fits, are errors in words', () => {
    for (const text of ['', 'Successfully wrote to /ws/a.txt', '```json\n{"a":1}\n```', undefined, 42]) {
      const parsed = parseUnifiedDiff(text);
      assert.ok('error' in parsed, String(text));
      assert.match(parsed.error, /no (text|unified diff)|could not be read/);
    }
    const applied = applyFilePatch('something else entirely\n', patch);
    assert.ok('error' in applied);
    assert.match(applied.error, /no longer fits/);
  });
});

describe('paths relative to the workspace', () => {
  test('absolute inside → relative; outside, home, climbing and the root itself → flagged', () => {
    assert.deepEqual(toWorkspacePath('/ws/src/a.ts', '/ws'), { inside: true, path: 'src/a.ts' });
    assert.deepEqual(toWorkspacePath('/ws/./src//b/../a.ts', '/ws/'), { inside: true, path: 'src/a.ts' });
    assert.deepEqual(toWorkspacePath('./src\\a.ts', '/ws'), { inside: true, path: 'src/a.ts' });
    assert.deepEqual(toWorkspacePath('/real/ws/a.ts', ['/ws', '/real/ws']), { inside: true, path: 'a.ts' }, 'a root alias (real path)');
    assert.deepEqual(toWorkspacePath('C:\\Work\\Proj\\src\\a.ts', 'c:\\work\\proj'), { inside: true, path: 'src/a.ts' });
    for (const [raw, reason] of [
      ['/wsx/a.ts', /outside the workspace/],
      ['/ws/../etc/passwd', /outside/],
      ['~/a.ts', /home/],
      ['../a.ts', /climbs/],
      ['src/../../a.ts', /climbs/],
      ['/ws', /workspace folder itself/],
      ['.', /workspace folder itself/],
      ['', /empty/],
      ['D:\\x', /outside/],
    ] as const) {
      const wp = toWorkspacePath(raw, '/ws');
      assert.equal(wp.inside, false, raw);
      assert.ok(!wp.inside);
      assert.match(wp.reason, reason, raw);
      assert.equal(wp.path, raw, 'an outside path is reported as given');
    }
  });
});

describe('what a plan may touch', () => {
  test('a dry-run flag on a tool that names no file (a deploy) is never called before approval', () => {
    const deploy = {
      name: 'deploy',
      inputSchema: { type: 'object', properties: { env: { type: 'string' }, dry_run: { type: 'boolean' } } },
    };
    assert.deepEqual(predictStep({ tool: 'deploy', args: { env: 'prod' } }, deploy, '/ws'), { kind: 'none' });
    const readOnly = {
      name: 'lint',
      inputSchema: { type: 'object', properties: { path: { type: 'string' }, dryRun: { type: 'boolean' } } },
      annotations: { readOnlyHint: true },
    };
    assert.deepEqual(predictStep({ tool: 'lint', args: { path: 'a.ts' } }, readOnly, '/ws'), { kind: 'none' });
  });

  test('touchedPaths: glob matches, files the steps name, predicted files; inside only, sorted, once', () => {
    const paths = touchedPaths(
      ['src/a.ts', 'src/b.ts'],
      [
        { args: { path: '/ws/src/a.ts', edits: [] } },
        { args: { source: 'old.txt', destination: '../elsewhere.txt' } },
        { args: { message: 'hi' } },
      ],
      [
        { path: 'docs/new.md', inside: true },
        { path: '/etc/hosts', inside: false },
      ],
      '/ws',
    );
    assert.deepEqual(paths, ['docs/new.md', 'old.txt', 'src/a.ts', 'src/b.ts']);
  });
});
