/**
 * Runs a decision hook (core/policy/decisionHook.ts): the user's command, started without a shell, the call as JSON on
 * its stdin, its answer read from stdout within its time limit. Whatever goes wrong — it cannot start, exits non-zero,
 * prints too much or nothing usable, outlives its limit, or the caller gives up — the answer is `ask`, with why. A
 * hook that outlives its limit is killed (SIGKILL: a hook is not trusted to stop when asked). The workspace folder is
 * in the input (`cwd`), not the hook's working directory: a command named by a relative path must not resolve inside
 * a folder the user may not trust.
 */
import { spawn } from 'node:child_process';
import { isAbsolute } from 'node:path';
import {
  MAX_HOOK_OUTPUT,
  failed,
  hookInput,
  readHookOutput,
  type DecisionHookConfig,
  type HookAnswer,
  type HookRequest,
} from '../core/policy/decisionHook';

export function runDecisionHook(config: DecisionHookConfig, request: HookRequest): Promise<HookAnswer> {
  return new Promise<HookAnswer>((resolve) => {
    if (request.signal?.aborted) return resolve(failed('the call was cancelled before the hook ran'));
    if (!isAbsolute(config.command) && /[\\/]/.test(config.command))
      return resolve(failed(`its command '${config.command}' is a relative path: give an absolute path or a program on PATH`));
    let settled = false;
    const out: Buffer[] = [];
    let size = 0;
    const child = spawn(config.command, [...(config.args ?? [])], {
      shell: false,
      stdio: ['pipe', 'pipe', 'ignore'],
      windowsHide: true,
    });
    const finish = (answer: HookAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      resolve(answer);
    };
    const onAbort = () => finish(failed('the call was cancelled while the hook ran'));
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () => finish(failed(`it did not answer within ${Math.round(config.timeoutMs / 100) / 10} s`)),
      config.timeoutMs,
    );
    child.on('error', (err) => finish(failed(`it could not be started: ${err.message}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_HOOK_OUTPUT) return finish(failed(`it printed more than ${MAX_HOOK_OUTPUT / 1024} KB`));
      out.push(chunk);
    });
    child.on('close', (code, signal) => {
      if (code !== 0) return finish(failed(signal ? `it was stopped by ${signal}` : `it exited with code ${code}`));
      finish(readHookOutput(Buffer.concat(out).toString('utf8')));
    });
    // A hook that does not read its input must not fail the write (EPIPE): its answer is what counts.
    child.stdin.on('error', () => undefined);
    child.stdin.end(hookInput(request));
  });
}
