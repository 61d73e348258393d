// Tree refreshes that keep their rows (src/ui/treeRefresh.ts, src/ui/serverRows.ts): a change that leaves a tree's top
// rows as they were refreshes those rows alone, and a server's row is the same object for as long as the server is
// listed. VS Code finds the row an inline action was clicked on by its element, and forgets every element on a refresh
// of the whole tree; an action clicked in between reached Stop / Restart / Export… without its row.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServerRows, type ServerTop } from '../../src/ui/serverRows';
import { fireRefresh, itemLook, TopRows } from '../../src/ui/treeRefresh';

const rows = (over: Partial<ServerTop> = {}): ServerTop => ({ problems: [], servers: ['alpha', 'beta'], issues: [], ...over });

describe('top rows of a tree', () => {
  it('the same rows: those rows are refreshed; other rows, or none shown yet: the whole tree', () => {
    const plans = new TopRows<string>();
    assert.equal(plans.refresh(['calls', 'p2', 'p1']), undefined, 'nothing shown yet');
    assert.deepEqual(plans.show(['calls', 'p2', 'p1']), ['calls', 'p2', 'p1']);
    assert.deepEqual(plans.refresh(['calls', 'p2', 'p1']), ['calls', 'p2', 'p1']);
    assert.equal(plans.refresh(['calls', 'p3', 'p2', 'p1']), undefined, 'a plan came');
    assert.equal(plans.refresh(['p2', 'p1']), undefined, 'the Calls group went');
    assert.equal(plans.refresh(['calls', 'p1', 'p2']), undefined, 'the order changed');
    plans.show(['calls', 'p3', 'p2', 'p1']);
    assert.deepEqual(plans.refresh(['calls', 'p3', 'p2', 'p1']), ['calls', 'p3', 'p2', 'p1']);
  });

  it('with a look: only the rows that show something new are refreshed, none when nothing shown changed', () => {
    const shows: Record<string, string> = { a: 'ok', b: 'running 1/3' };
    const rows = new TopRows<string>(
      (r) => r,
      (r) => shows[r],
    );
    rows.show(['a', 'b']);
    assert.deepEqual(rows.refresh(['a', 'b']), [], 'nothing shown changed: no row is refreshed');
    shows.b = 'running 2/3';
    assert.deepEqual(rows.refresh(['a', 'b']), ['b']);
    assert.deepEqual(rows.refresh(['a', 'b']), [], 'b was refreshed already with what it shows now');
    assert.equal(rows.refresh(['b', 'a']), undefined, 'the order changed: the whole tree');
    shows.a = 'failed';
    rows.show(['a', 'b']);
    assert.deepEqual(rows.refresh(['a', 'b']), [], 'what the tree asked for is what it shows');
  });

  it('a refresh that names no row is not fired; the whole tree or some rows are', () => {
    const fired: unknown[] = [];
    fireRefresh({ fire: (r) => fired.push(r) }, []);
    fireRefresh({ fire: (r) => fired.push(r) }, undefined);
    fireRefresh({ fire: (r) => fired.push(r) }, ['a']);
    assert.deepEqual(fired, [undefined, ['a']]);
  });

  it("an item's look: what the user sees or acts on", () => {
    const item = {
      label: 'Plan',
      description: 'running',
      tooltip: { value: 'md' },
      iconPath: { id: 'sync', color: { id: 'c' } },
      contextValue: 'plan',
    };
    assert.deepEqual(itemLook(item as never), ['Plan', 'running', 'md', 'sync', 'c', 'plan', undefined, undefined]);
    assert.notDeepEqual(itemLook({ ...item, description: 'done' } as never), itemLook(item as never));
  });

  it('rows told apart by a key of their own', () => {
    const rows = new TopRows<{ id: string; at: number }>((r) => r.id);
    rows.show([{ id: 'a', at: 1 }]);
    assert.deepEqual(rows.refresh([{ id: 'a', at: 2 }]), [{ id: 'a', at: 2 }]);
    assert.equal(rows.refresh([{ id: 'b', at: 1 }]), undefined);
  });
});

describe('Servers tree rows', () => {
  it('a server row is the same object each time the tree asks, for as long as the server is listed', () => {
    const tree = new ServerRows();
    const first = tree.top(rows());
    const again = tree.top(rows({ problems: ['mcp.json: a comma is missing'] }));
    assert.deepEqual(
      first.map((r) => r.kind),
      ['server', 'server'],
    );
    assert.equal(again[1], first[0], 'alpha is another object after the problems changed');
    assert.equal(again[2], first[1]);
    const dropped = tree.top(rows({ servers: ['beta'] }));
    assert.equal(dropped[0], first[1]);
    const back = tree.top(rows());
    assert.notEqual(back[0], first[0], 'a server listed again is a new row (its old one was forgotten)');
    assert.deepEqual(back[0], { kind: 'server', name: 'alpha' });
  });

  it('a change that keeps the rows refreshes the server rows alone, as the objects the tree holds', () => {
    const tree = new ServerRows();
    const shown = tree.top(rows());
    const refresh = tree.changed(rows());
    assert.ok(refresh, 'the whole tree was refreshed: an inline action clicked meanwhile loses its row');
    assert.equal(refresh.length, 2);
    const withProblem = rows({ problems: ['mcp.json: a comma is missing'] });
    tree.top(withProblem);
    assert.deepEqual(
      tree.changed(withProblem)?.map((r) => r.kind),
      ['server', 'server'],
      'only the server rows: a problem row has nothing to refresh',
    );
    assert.equal(refresh[0], shown[0]);
    assert.equal(refresh[1], shown[1]);
  });

  it('a change of the rows themselves refreshes the whole tree; so does any change before the tree asked', () => {
    const tree = new ServerRows();
    assert.equal(tree.changed(rows()), undefined);
    tree.top(rows());
    assert.equal(tree.changed(rows({ servers: ['alpha'] })), undefined, 'a server went');
    assert.equal(tree.changed(rows({ servers: ['alpha', 'beta', 'gamma'] })), undefined, 'a server came');
    assert.equal(tree.changed(rows({ servers: ['beta', 'alpha'] })), undefined, 'the order changed');
    assert.equal(tree.changed(rows({ problems: ['mcp.json: a comma is missing'] })), undefined, 'a problem came');
    const issue = { server: 'gamma', message: 'waits for workspace trust', untrusted: true, reasons: ['runs a command'] };
    assert.equal(tree.changed(rows({ issues: [issue] })), undefined, 'an issue came');
    tree.top(rows({ issues: [issue] }));
    assert.equal(
      tree.changed(rows({ issues: [{ ...issue, reasons: ['runs a command', 'reads an env file'] }] })),
      undefined,
      'its reasons changed',
    );
    assert.ok(tree.changed(rows({ issues: [issue] })), 'the same issue: only the server rows');
  });
});
