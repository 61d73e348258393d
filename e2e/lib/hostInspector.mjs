// The extension host's own memory, read through Node's inspector, which the test hook opens in a session's extension
// host (e2e/lib/inspectorProbe.cjs) when the session starts with `hostInspectorEnv(name, port)`. Memory is read as the
// JavaScript heap in use after full garbage collections, not as a resident size that holds garbage or not depending
// on when V8 last collected.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT, runDir } from './env.mjs';

/** A free port on 127.0.0.1 (for the extension host's inspector). */
export function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/**
 * The environment of a session whose extension host opens its inspector on `port`.
 * @param {string} name the session's name (the probe's result file is named after it)
 * @param {number} port
 */
export function hostInspectorEnv(name, port) {
  return {
    PLANGATE_TEST_SUITE: path.join(ROOT, 'e2e', 'lib', 'inspectorProbe.cjs'),
    PLANGATE_TEST_RESULT: path.join(runDir(), `${name}-inspector.json`),
    PLANGATE_E2E_INSPECT_PORT: String(port),
  };
}

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/** The extension host's JavaScript heap in use after two full garbage collections, in MB. @param {number} port */
export async function hostHeapAfterGcMB(port) {
  return withHostInspector(port, async (send) => {
    await send('HeapProfiler.collectGarbage');
    await send('HeapProfiler.collectGarbage');
    const { result } = await send('Runtime.getHeapUsage');
    return Math.round((result.usedSize / 1024 / 1024) * 10) / 10;
  });
}

/**
 * Runs `work` under the extension host's CPU profiler (1 ms samples) and writes the profile to `file` (open it in
 * Chrome's DevTools or VS Code): what the host spent its time on while, say, a long plan ran from the panel.
 * @template T @param {number} port @param {string} file @param {() => Promise<T>} work @returns {Promise<T>}
 */
export async function withHostCpuProfile(port, file, work) {
  /** @type {(file: string) => Promise<void>} */
  let stop = async () => undefined;
  await withHostInspector(
    port,
    async (send) => {
      await send('Profiler.enable');
      await send('Profiler.setSamplingInterval', { interval: 1000 });
      await send('Profiler.start');
    },
    true,
  ).then((session) => (stop = session));
  try {
    return await work();
  } finally {
    await stop(file);
  }
}

/**
 * Connects to the extension host's inspector and runs `use` with a `send(method, params)`; closes the connection after,
 * or with `keep`, resolves with a function that stops the profiler, writes its profile to a file and closes.
 * @param {number} port @param {(send: (method: string, params?: object) => Promise<any>) => Promise<any>} use @param {boolean} [keep]
 */
async function withHostInspector(port, use, keep = false) {
  const deadline = Date.now() + 30_000;
  /** @type {{ webSocketDebuggerUrl: string }[]} */
  let targets = [];
  while (Date.now() < deadline && targets.length === 0) {
    targets = await fetch(`http://127.0.0.1:${port}/json/list`)
      .then((r) => r.json())
      .catch(() => []);
    if (targets.length === 0) await sleep(250);
  }
  if (targets.length === 0) throw new Error(`the extension host's inspector did not open on port ${port}`);
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error('could not connect to the extension host inspector'));
  });
  let next = 0;
  const pending = new Map();
  ws.onmessage = (m) => {
    const msg = JSON.parse(String(m.data));
    pending.get(msg.id)?.(msg);
    pending.delete(msg.id);
  };
  /** @param {string} method @param {object} [params] @returns {Promise<any>} */
  const send = (method, params) =>
    new Promise((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, ...(params ? { params } : {}) }));
    });
  if (keep) {
    await use(send);
    return async (/** @type {string} */ file) => {
      const { result } = await send('Profiler.stop');
      fs.writeFileSync(file, JSON.stringify(result.profile));
      ws.close();
    };
  }
  try {
    return await use(send);
  } finally {
    ws.close();
  }
}
