// The extension host's own memory, read through Node's inspector, which the test hook opens in a session's extension
// host (e2e/lib/inspectorProbe.cjs) when the session starts with `hostInspectorEnv(name, port)`. Memory is read as the
// JavaScript heap in use after full garbage collections, not as a resident size that holds garbage or not depending
// on when V8 last collected.
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
  /** @param {string} method @returns {Promise<any>} */
  const send = (method) =>
    new Promise((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method }));
    });
  try {
    await send('HeapProfiler.collectGarbage');
    await send('HeapProfiler.collectGarbage');
    const { result } = await send('Runtime.getHeapUsage');
    return Math.round((result.usedSize / 1024 / 1024) * 10) / 10;
  } finally {
    ws.close();
  }
}
