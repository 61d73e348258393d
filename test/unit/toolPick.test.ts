// The Call Tool pick while servers start: each server is listed, a starting one says so and gets its tools once
// it runs; nothing claims that no server is configured while servers are only starting.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { toolPickPlaceholder, toolPickRows, type PickServer } from '../../src/core/present/toolPick';

const tool = (name: string, description?: string, title?: string) => ({
  name,
  ...(description ? { description } : {}),
  ...(title ? { title } : {}),
});

describe('the Call Tool pick', () => {
  it('lists a starting server with a state line instead of tools, and says it waits', () => {
    const servers: PickServer[] = [{ name: 'demo', state: 'starting', tools: [] }];
    assert.deepEqual(toolPickRows(servers), [
      { kind: 'separator', label: 'demo' },
      { kind: 'status', server: 'demo', label: '$(loading~spin) demo is starting…', detail: 'Its tools appear here as soon as it runs.' },
    ]);
    assert.equal(toolPickPlaceholder(servers), 'Waiting for tools: 1 server is still starting…');
  });

  it('fills in the tools of a server once it runs, beside one still starting', () => {
    const servers: PickServer[] = [
      { name: 'demo', state: 'running', tools: [tool('plan_scaffold', 'Plan: scaffold a screen\nmore'), tool('echo', undefined, 'Echo')] },
      { name: 'files', state: 'starting', tools: [] },
    ];
    assert.deepEqual(toolPickRows(servers), [
      { kind: 'separator', label: 'demo' },
      { kind: 'tool', server: 'demo', tool: 'plan_scaffold', label: 'plan_scaffold', detail: 'Plan: scaffold a screen' },
      { kind: 'tool', server: 'demo', tool: 'echo', label: 'Echo', description: 'echo' },
      { kind: 'separator', label: 'files' },
      { kind: 'status', server: 'files', label: '$(loading~spin) files is starting…', detail: 'Its tools appear here as soon as it runs.' },
    ]);
    assert.equal(toolPickPlaceholder(servers), 'Pick a tool to call (1 server is still starting; their tools will appear)');
    servers[1] = { name: 'files', state: 'running', tools: [tool('read_file')] };
    assert.equal(toolPickPlaceholder(servers), 'Pick a tool to call');
  });

  it('says why a server has no tools: failed, stopped, or none offered', () => {
    const rows = toolPickRows([
      { name: 'a', state: 'error', message: 'spawn nope ENOENT\nstderr…', tools: [] },
      { name: 'b', state: 'stopped', tools: [] },
      { name: 'c', state: 'running', tools: [] },
    ]).filter((r) => r.kind === 'status');
    assert.deepEqual(
      rows.map((r) => [r.label, r.kind === 'status' ? r.detail : undefined]),
      [
        ['$(error) a is not running', 'spawn nope ENOENT — see Plangate: Show Log'],
        ['$(debug-stop) b is stopped', 'Start it from the Servers view.'],
        ['c offers no tools', undefined],
      ],
    );
    assert.equal(toolPickPlaceholder([{ name: 'a', state: 'error', tools: [] }]), 'No server offers a tool to call');
  });
});
