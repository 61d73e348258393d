/**
 * Ending the server when a CLI command is done, in bounded time. The SDK's own close of a stdio server ends its
 * stdin, waits 2 s for the process to close its pipes, sends SIGTERM and waits 2 s more: a server busy with a call
 * that timed out ignores the end of its input, and a launcher (`npx`, `sh -c`) that dies on SIGTERM leaves the real
 * server behind holding the pipes, so the SDK waits its full 4 s and the CLI then waited for those pipes too. Here the
 * process itself is watched: the end of input, `graceMs` to exit, SIGTERM, `graceMs` more, SIGKILL. What a launcher
 * left behind is not waited for (the CLI exits without waiting for open handles, see main.ts).
 */
import type { ServerConnection } from '../mcp/connection';

/** Whether process `pid` still exists (a process of another user counts as existing). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    /* it exited meanwhile */
  }
}

/** Resolves true once `pid` is gone or `closed` settles, false after `ms`. */
async function goneWithin(pid: number, closed: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  void closed.then(() => (settled = true));
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (settled || !alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return settled || !alive(pid);
}

/**
 * Stops `connection` (no reconnect) and its stdio server: resolves once the server has exited, or at most about
 * 2 × `graceMs` later, after SIGTERM and SIGKILL. An HTTP connection gets 2 × `graceMs` to close.
 */
export async function stopServer(connection: ServerConnection, graceMs = 1000): Promise<void> {
  const pid = connection.pid; // before dispose(), which forgets the session
  const closed = connection.dispose().catch(() => undefined);
  if (pid === undefined) {
    await Promise.race([closed, new Promise((r) => setTimeout(r, 2 * graceMs).unref())]);
    return;
  }
  if (await goneWithin(pid, closed, graceMs)) return;
  signal(pid, 'SIGTERM');
  if (await goneWithin(pid, closed, graceMs)) return;
  signal(pid, 'SIGKILL');
}
