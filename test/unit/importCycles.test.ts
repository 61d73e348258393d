// The house keeps no import circles in src/: read from esbuild's metafile of the three entry points (the extension,
// the CLI, the webview) and the gated server, every module of src/ with what it imports, type-only imports included
// (esbuild drops those, so they are read from the source too). A circle makes two files one unit: neither can be
// understood, tested or moved without the other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from './helpers/fixture';

/** The src/ modules reachable from the entry points, each with the src/ modules it imports (values and types). */
async function importGraph(): Promise<Map<string, Set<string>>> {
  const result = await build({
    entryPoints: ['src/extension.ts', 'src/cli/main.ts', 'src/webview/main.ts', 'src/gate/gatedServer.ts'].map((e) => join(REPO_ROOT, e)),
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    outdir: 'out',
    external: ['vscode'],
    logLevel: 'silent',
  });
  const files = Object.keys(result.metafile.inputs).filter((f) => f.startsWith('src/'));
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const edges = new Set<string>();
    const source = readFileSync(join(REPO_ROOT, file), 'utf8');
    for (const m of source.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm)) {
      const base = resolve(REPO_ROOT, dirname(file), m[1]!);
      const target = [`${base}.ts`, join(base, 'index.ts')].map((p) => relative(REPO_ROOT, p)).find((p) => files.includes(p));
      if (target) edges.add(target);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** The circles of `graph`: each strongly connected component of more than one module (or a module importing itself). */
function circles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  // Iterative Tarjan: the graph is small, but recursion depth should not depend on it.
  for (const root of graph.keys()) {
    if (order.has(root)) continue;
    const work: { node: string; edges: string[]; i: number }[] = [];
    const enter = (node: string) => {
      order.set(node, index);
      low.set(node, index++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: [...(graph.get(node) ?? [])], i: 0 });
    };
    enter(root);
    while (work.length) {
      const top = work[work.length - 1]!;
      if (top.i < top.edges.length) {
        const next = top.edges[top.i++]!;
        if (!order.has(next)) enter(next);
        else if (onStack.has(next)) low.set(top.node, Math.min(low.get(top.node)!, order.get(next)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) === order.get(top.node)) {
        const component: string[] = [];
        let n: string;
        do {
          n = stack.pop()!;
          onStack.delete(n);
          component.push(n);
        } while (n !== top.node);
        if (component.length > 1 || graph.get(top.node)?.has(top.node)) found.push(component.sort());
      }
    }
  }
  return found;
}

test('the modules of src/ import each other in no circle', async () => {
  const graph = await importGraph();
  assert.ok(graph.size > 100, `the graph holds the house (${graph.size} modules)`);
  assert.deepEqual(circles(graph), []);
});

/** The same graph with each module replaced by its folder (src/core/engine/door.ts → src/core/engine). */
function folderGraph(graph: Map<string, Set<string>>): Map<string, Set<string>> {
  const folders = new Map<string, Set<string>>();
  for (const [file, edges] of graph) {
    const from = dirname(file);
    const out = folders.get(from) ?? new Set<string>();
    for (const e of edges) if (dirname(e) !== from) out.add(dirname(e));
    folders.set(from, out);
  }
  return folders;
}

test('the folders of src/ import each other in no circle either (a layer never reaches back up through another)', async () => {
  const folders = folderGraph(await importGraph());
  assert.ok(folders.has('src/core/engine') && folders.has('src/core/workflow'), "the graph holds core's layers");
  assert.deepEqual(circles(folders), []);
});

test('the circle check finds a circle where there is one', () => {
  const g = new Map([
    ['a', new Set(['b'])],
    ['b', new Set(['c'])],
    ['c', new Set(['a', 'd'])],
    ['d', new Set<string>()],
    ['e', new Set(['e'])],
  ]);
  assert.deepEqual(circles(g), [['a', 'b', 'c'], ['e']]);
  // Two folders whose modules import each other, without any module-level circle, are one circle of folders.
  const twoFolders = new Map([
    ['src/x/a.ts', new Set(['src/y/b.ts'])],
    ['src/y/b.ts', new Set<string>()],
    ['src/y/c.ts', new Set(['src/x/d.ts'])],
    ['src/x/d.ts', new Set<string>()],
  ]);
  assert.deepEqual(circles(twoFolders), []);
  assert.deepEqual(circles(folderGraph(twoFolders)), [['src/x', 'src/y']]);
});
