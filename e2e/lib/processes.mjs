// Process groups the harness starts (code-server, chromium), and how they always end.
// Every group is recorded in .e2e/pids/<pgid>.json with a marker string from its command line; `reapStale()`
// (run by e2e/run.sh before and after the specs) kills recorded groups that outlived their spec, even if the spec
// was killed with SIGKILL. The marker check keeps a recycled pid from ever being killed by mistake.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { E2E_HOME } from './env.mjs';

const PID_DIR = path.join(E2E_HOME, 'pids');

/** Live groups of this process: pgid → marker. */
const live = new Map();

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

function cmdlineHas(pid, marker) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
  } catch {
    return false;
  }
}

function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/** Records `pgid` (a group leader whose command line contains `marker`) so that it is killed however this process ends. */
export function trackGroup(pgid, marker, label) {
  live.set(pgid, marker);
  fs.mkdirSync(PID_DIR, { recursive: true });
  fs.writeFileSync(
    path.join(PID_DIR, `${pgid}.json`),
    JSON.stringify({ pgid, marker, label, owner: process.pid, at: new Date().toISOString() }),
  );
}

function untrack(pgid) {
  live.delete(pgid);
  fs.rmSync(path.join(PID_DIR, `${pgid}.json`), { force: true });
}

/**
 * Starts `command` as the leader of a new process group (like setsid), output appended to `logFile`.
 * Returns `{ pid, exited }` where `exited` resolves to the exit code (or signal name).
 */
export function spawnGroup(command, args, { env, cwd, logFile, marker, label }) {
  const out = fs.openSync(logFile, 'a');
  const child = spawn(command, args, { env, cwd, detached: true, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  child.once('error', () => {});
  if (child.pid) trackGroup(child.pid, marker, label);
  return { pid: child.pid, exited };
}

/** SIGTERM to the whole group, SIGKILL after `graceMs` if anything of it is left; resolves when the group is gone. */
export async function killGroup(pgid, graceMs = 5000) {
  if (!pgid) return;
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (groupAlive(pgid)) {
    signalGroup(pgid, 'SIGKILL');
    const hard = Date.now() + 3000;
    while (groupAlive(pgid) && Date.now() < hard) await new Promise((r) => setTimeout(r, 50));
  }
  untrack(pgid);
}

/** Synchronous last resort for exit paths: SIGKILL every group this process still owns. */
function killAllNow() {
  for (const pgid of live.keys()) {
    signalGroup(pgid, 'SIGKILL');
    fs.rmSync(path.join(PID_DIR, `${pgid}.json`), { force: true });
  }
  live.clear();
}

const asyncCleanups = new Set();
/** Registers an async cleanup (closing a browser) run on SIGINT/SIGTERM before the groups are killed; returns an unregister function. */
export function onInterrupt(fn) {
  asyncCleanups.add(fn);
  return () => asyncCleanups.delete(fn);
}

/** Writes to stderr without ever throwing (the test runner's end of the pipe may be gone already). */
function say(text) {
  try {
    fs.writeSync(2, `${text}\n`);
  } catch {
    // nowhere to report to
  }
}
// A broken stdout/stderr pipe (the parent test runner was interrupted first) must not crash us before cleanup.
process.stdout.on?.('error', () => {});
process.stderr.on?.('error', () => {});

let interrupted = false;
for (const [signal, code] of /** @type {[NodeJS.Signals, number][]} */ ([
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
])) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    say(`[e2e] ${signal}: stopping code-server and the browser`);
    for (const pgid of live.keys()) signalGroup(pgid, 'SIGTERM'); // at once, whatever happens next
    const timer = setTimeout(() => {
      killAllNow();
      process.exit(code);
    }, 3000);
    Promise.allSettled([...asyncCleanups].map((fn) => fn())).finally(() => {
      clearTimeout(timer);
      killAllNow();
      process.exit(code);
    });
  });
}
process.on('exit', killAllNow);

/**
 * Kills every recorded group whose owning spec process has ended and whose leader still runs the command it was
 * recorded with (so a concurrent e2e run is left alone); returns how many.
 */
export function reapStale() {
  let n = 0;
  let files = [];
  try {
    files = fs.readdirSync(PID_DIR).filter((f) => f.endsWith('.json'));
  } catch {
    return 0;
  }
  for (const f of files) {
    const file = path.join(PID_DIR, f);
    try {
      const { pgid, marker, label, owner } = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (owner && owner !== process.pid && cmdlineHas(owner, 'node')) continue; // its spec still runs (maybe another e2e run)
      if (groupAlive(pgid) && cmdlineHas(pgid, marker)) {
        signalGroup(pgid, 'SIGKILL');
        say(`[e2e] killed a leftover ${label ?? 'process'} group ${pgid}`);
        n++;
      }
    } catch {
      // unreadable record: drop it
    }
    fs.rmSync(file, { force: true });
  }
  return n;
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname && process.argv[2] === 'reap') {
  reapStale();
}
