import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LOCAL_SERVER, resolveSteps, reviewedChangeParts, reviewedChangeText } from '../../src/core/engine/resolve';
import type { ServerTools } from '../../src/core/engine/invoker';

const CATALOG: ServerTools[] = [
  { server: 'files', tools: ['write_file', 'read_file', 'echo'] },
  { server: 'scaffold', tools: ['create_screen', 'echo'] },
  { server: 'api', tools: ['wire_api', 'create_screen'] },
];
const call = (tool: string) => ({ tool, args: {} });

describe('resolveSteps', () => {
  it('resolves on the issuing server first, even when a server earlier in the configuration offers the tool', () => {
    const r = resolveSteps([call('echo'), call('create_screen')], 'scaffold', CATALOG, { allowCrossServer: true });
    assert.deepEqual(r, {
      ok: true,
      resolutions: [
        { server: 'scaffold', crossServer: false, local: false },
        { server: 'scaffold', crossServer: false, local: false },
      ],
    });
  });

  it('a tool missing on the issuing server resolves on the first other server in configuration order (cross-server)', () => {
    const r = resolveSteps([call('create_screen'), call('write_file')], 'api', CATALOG, { allowCrossServer: true });
    assert.ok(r.ok);
    assert.deepEqual(r.resolutions[0], { server: 'api', crossServer: false, local: false });
    assert.deepEqual(r.resolutions[1], { server: 'files', crossServer: true, local: false });
    const s = resolveSteps([call('echo')], 'api', CATALOG, { allowCrossServer: true });
    assert.ok(s.ok);
    assert.equal(s.resolutions[0].server, 'files', 'files comes before scaffold in the configuration');
  });

  it('with cross-server steps off, a tool only on another server is missing, and the reason says the setting forbids it', () => {
    const r = resolveSteps([call('create_screen'), call('wire_api')], 'scaffold', CATALOG, { allowCrossServer: false });
    assert.equal(r.ok, false);
    assert.ok(!r.ok);
    assert.equal(r.missing.length, 1);
    assert.equal(r.missing[0].index, 1);
    assert.equal(r.missing[0].tool, 'wire_api');
    assert.match(r.missing[0].reason, /only offered by server 'api'/);
    assert.match(r.missing[0].reason, /cross-server steps are off \(setting plangate\.allowCrossServerSteps\)/);
  });

  it('ask_user steps resolve locally, never to a server (even one that offers a tool of that name)', () => {
    const catalog = [...CATALOG, { server: 'sneaky', tools: ['ask_user'] }];
    const r = resolveSteps([{ tool: 'ask_user', args: { prompt: 'Name?' } }], 'sneaky', catalog, { allowCrossServer: false });
    assert.deepEqual(r, { ok: true, resolutions: [{ server: LOCAL_SERVER, crossServer: false, local: true }] });
  });

  it('lists every tool that resolves nowhere (then nothing may run)', () => {
    const r = resolveSteps([call('write_file'), call('deploy'), call('migrate')], 'files', CATALOG, { allowCrossServer: true });
    assert.ok(!r.ok);
    assert.deepEqual(
      r.missing.map((m) => [m.index, m.tool]),
      [
        [1, 'deploy'],
        [2, 'migrate'],
      ],
    );
    assert.match(r.missing[0].reason, /tool 'deploy' is not offered by any connected server \(server 'files' does not offer it\)/);
  });

  it('says when the issuing server is not connected at all', () => {
    const r = resolveSteps([call('deploy')], 'gone', CATALOG, { allowCrossServer: true });
    assert.ok(!r.ok);
    assert.match(r.missing[0].reason, /server 'gone' is not connected/);
    const s = resolveSteps([call('write_file')], 'gone', CATALOG, { allowCrossServer: true });
    assert.ok(s.ok);
    assert.deepEqual(s.resolutions[0], { server: 'files', crossServer: true, local: false });
  });

  it('tool names match exactly; an empty plan resolves to nothing', () => {
    const r = resolveSteps([call('Write_File'), call('')], 'files', CATALOG, { allowCrossServer: true });
    assert.ok(!r.ok);
    assert.equal(r.missing.length, 2);
    assert.match(r.missing[1].reason, /names no tool/);
    assert.deepEqual(resolveSteps([], 'files', CATALOG, { allowCrossServer: true }), { ok: true, resolutions: [] });
  });
});

describe('what changed at a step while its plan waited (reviewedChangeParts, reviewedChangeText)', () => {
  const echo = { name: 'echo', description: 'Harmless echo.', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };
  const defs = new Map<string, { name: string } & Record<string, unknown>>([
    ['h1', echo],
    ['h2', { ...echo, description: 'Deletes the repository.', inputSchema: { type: 'object', properties: { force: {} } } }],
    ['h3', { ...echo, annotations: { readOnlyHint: true }, _meta: { approval: 'ask' }, extra: 1 }],
  ]);
  const of = (h: string) => defs.get(h);

  it('names the parts of a redefinition, and nothing for the same definition', () => {
    const a = { server: 'fx', toolHash: 'h1' };
    assert.deepEqual(reviewedChangeParts(a, { ...a }, of), []);
    assert.deepEqual(reviewedChangeParts(a, { server: 'fx', toolHash: 'h2' }, of), ['description', 'input schema']);
    assert.deepEqual(reviewedChangeParts(a, { server: 'fx', toolHash: 'h3' }, of), ['_meta', 'other fields']);
    assert.equal(
      reviewedChangeText(a, { server: 'fx', toolHash: 'h2' }, 'echo', ['description', 'input schema']),
      "server 'fx' changed the description and input schema of tool 'echo'",
    );
  });

  it('says "definition" when the earlier one is not known, and names a move to another server', () => {
    assert.deepEqual(reviewedChangeParts({ server: 'fx', toolHash: 'gone' }, { server: 'fx', toolHash: 'h1' }, of), ['definition']);
    const moved = reviewedChangeParts({ server: 'a', toolHash: 'h1' }, { server: 'b', toolHash: 'h2' }, of);
    assert.deepEqual(moved, ['server', 'description', 'input schema']);
    assert.equal(
      reviewedChangeText({ server: 'a', toolHash: 'h1' }, { server: 'b', toolHash: 'h2' }, 'echo', moved),
      "tool 'echo' now resolves on server 'b', not on server 'a' (and its description and input schema changed)",
    );
  });

  it('names a tool that is no longer offered, or offered again', () => {
    const gone = { unresolved: "tool 'echo' is not offered by any connected server" };
    assert.deepEqual(reviewedChangeParts({ server: 'fx', toolHash: 'h1' }, gone, of), ['availability']);
    assert.match(
      reviewedChangeText({ server: 'fx', toolHash: 'h1' }, gone, 'echo', ['availability']),
      /is no longer offered by any server/,
    );
    assert.deepEqual(reviewedChangeParts(gone, { server: 'fx', toolHash: 'h1' }, of), ['availability']);
    assert.deepEqual(reviewedChangeParts(gone, gone, of), []);
  });
});
