/**
 * Answers a server's `sampling/createMessage` from the CLI (`plangate run --sampling MODE`), through the engine's
 * sampling gate (core/engine/sampling.ts: bounds, the policy's `sampling` entrance, the record). The CLI has no
 * language model: by default (`decline`) every request is refused, with a line on stderr saying which server asked and
 * how to answer instead. `--sampling ask` shows the request on the terminal (server text escaped, images described,
 * never drawn) and the user types the answer: the typing is the review, an empty answer declines. Without a terminal,
 * `ask` declines too (and says why).
 */
import { randomUUID } from 'node:crypto';
import type { SamplingRequest } from '../core/base/samplingRequest';
import { answerSampling, SamplingRefusal, type SamplingPorts, type SamplingUser } from '../core/engine/sampling';
import { evaluate } from '../core/policy/evaluate';
import { EMPTY_RULES, type PolicyRules } from '../core/policy/rules';
import type { SamplingRecord } from '../core/workflow/workflow';
import type { SamplingHandler } from '../mcp/connection';
import type { Output } from './output';
import type { Prompter } from './prompter';
import { safeText } from './safeText';

/** `--sampling`: what the CLI does with a server's sampling request. */
export type CliSamplingMode = 'decline' | 'ask';
export const CLI_SAMPLING_MODES: readonly CliSamplingMode[] = ['decline', 'ask'];

export interface CliSamplingDeps {
  out: Output;
  mode: CliSamplingMode;
  /** The terminal, when there is one. */
  prompter?: Prompter;
  policy?: PolicyRules;
  sandboxed(): boolean;
  /** Puts the outcome on the run's record (the ledger of --ledger, or memory). */
  record(event: SamplingRecord): void;
}

const TERMINAL_MODEL = { id: 'terminal', name: 'you, on the terminal' };
/** Lines of one typed answer, at most. */
const MAX_ANSWER_LINES = 200;

/** The request as terminal lines: every piece of server text escaped (bidi, controls), long text cut with a count. */
export function describeSamplingRequest(server: string, calls: readonly string[], request: SamplingRequest): string[] {
  const t = (text: string, max = 4000) => safeText(text, { keepNewlines: true, max });
  const lines = [
    `Server '${safeText(server, { max: 100 })}' asks for a language model's answer (sampling)${calls.length ? ` during '${calls.map((c) => safeText(c, { max: 100 })).join("', '")}'` : ''}.`,
  ];
  if (request.systemPrompt !== undefined) lines.push(`  system prompt: ${t(request.systemPrompt)}`);
  request.messages.forEach((m, i) => {
    for (const p of m.parts) {
      const head = `  ${i + 1}. ${m.role}: `;
      if (p.type === 'text') lines.push(`${head}${t(p.text)}`);
      else if (p.type === 'image') lines.push(`${head}[image ${p.mimeType}, ${p.bytes} bytes: not shown on a terminal]`);
      else lines.push(`${head}[${safeText(p.what, { max: 100 })}: ${p.problem}]`);
    }
  });
  const prefs = [
    request.modelHints.length ? `hints ${request.modelHints.map((h) => safeText(h, { max: 100 })).join(', ')}` : '',
    ...Object.entries(request.priorities).map(([k, v]) => `${k} ${v}`),
  ].filter(Boolean);
  if (prefs.length) lines.push(`  model preferences: ${prefs.join('; ')}`);
  lines.push(
    `  token limit: ${request.maxTokens}${request.maxTokensAsked ? ` (asked: ${safeText(request.maxTokensAsked, { max: 40 })})` : ''}`,
  );
  for (const n of request.notes) lines.push(`  note: ${n}`);
  return lines;
}

function terminalUser(out: Output, prompter: Prompter): SamplingUser {
  return {
    approve: async (ask) => {
      for (const line of describeSamplingRequest(ask.server, ask.calls, ask.request)) out.error(line);
      return (await prompter.confirm('Answer it yourself?')) ? { action: 'approve', modelId: TERMINAL_MODEL.id } : { action: 'decline' };
    },
    // The answer was typed by the user (complete below): that is its review.
    review: async (_ask, answer) =>
      'text' in answer && answer.text.trim() !== '' ? { action: 'send', text: answer.text } : { action: 'decline' },
  };
}

/** The connection's sampling handler for `plangate run`. */
export function cliSamplingHandler(deps: CliSamplingDeps): SamplingHandler {
  const { out, prompter } = deps;
  const canAsk = deps.mode === 'ask' && prompter !== undefined;
  const ports: SamplingPorts = {
    policy: (call) => evaluate(deps.policy ?? EMPTY_RULES, call),
    sandboxed: () => deps.sandboxed(),
    ...(canAsk
      ? { user: terminalUser(out, prompter) }
      : {
          unanswered:
            deps.mode === 'ask'
              ? 'there is no terminal to ask on (stdin and stdout must be a terminal)'
              : 'plangate run declines sampling requests unless run with --sampling ask',
        }),
    models: async () => (canAsk ? [TERMINAL_MODEL] : []),
    complete: async () => {
      out.error('Type the answer; an empty line ends it (an empty answer declines):');
      const lines: string[] = [];
      for (
        let line = await prompter!.ask('> ');
        line !== undefined && line !== '' && lines.length < MAX_ANSWER_LINES;
        line = await prompter!.ask('> ')
      )
        lines.push(line);
      return lines.join('\n');
    },
    record: (event) => deps.record(event),
    newId: randomUUID,
    now: Date.now,
  };
  return async (server, params, calls, signal) => {
    try {
      return await answerSampling(ports, server, params, calls, signal);
    } catch (err) {
      if (err instanceof SamplingRefusal) {
        const hint =
          deps.mode === 'decline' && !/denied by rule/.test(err.reason) ? ' To answer it on the terminal, run with --sampling ask.' : '';
        out.error(`plangate run: server '${safeText(server, { max: 100 })}' asked for a sampling request; ${err.reason}.${hint}`);
      }
      throw err;
    }
  };
}
