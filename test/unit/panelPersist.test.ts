// README: "Results larger than 512 KB are not kept across reloads" (an app's result item). What a window reload finds
// is what the panel's items wrote to the workspace memento: a new PanelItems over the same memento reads it back.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PanelItems } from '../../src/ui/panel/panelItems';
import type { ResultView } from '../../src/shared/protocol/results';

function memento() {
  const data = new Map<string, unknown>();
  return {
    get: (k: string, d?: unknown) => (data.has(k) ? data.get(k) : d),
    update: async (k: string, v: unknown) => void data.set(k, JSON.parse(JSON.stringify(v))),
    keys: () => [...data.keys()],
  };
}

const tree = { rootOf: (id: string) => id, finished: () => false, resolution: () => undefined };

/** An app's result item whose saved form (title, uri, view) is `chars` characters of JSON, give or take a few. */
function appResult(tool: string, textChars: number): ResultView {
  return {
    server: 'fixture',
    tool,
    args: {},
    result: { content: [{ type: 'text', text: 'x'.repeat(textChars) }] },
    app: { appId: `app-${tool}`, uri: `ui://fixture/${tool}` },
  };
}

describe('app results across a window reload: larger than 512 KB, not kept', () => {
  it('a result just under 512 KB is kept; one just over is not; the others stay', () => {
    const store = memento();
    const before = new PanelItems(store as never, tree);
    const overhead = 300; // the saved item's other fields, well under this
    before.showResult(appResult('small', 1000));
    before.showResult(appResult('under', 512 * 1024 - overhead));
    before.showResult(appResult('over', 512 * 1024 + 1));
    const saved = JSON.stringify(new PanelItems(store as never, tree).persisted().apps[1]);
    assert.ok(saved.length <= 512 * 1024 && saved.length > 512 * 1024 - overhead, `the "under" item is ${saved.length} characters`);

    const after = new PanelItems(store as never, tree); // the window reloaded
    assert.deepEqual(
      after.persisted().apps.map((a) => a.view.tool),
      ['small', 'under'],
    );
    before.dispose();
    after.dispose();
  });
});
