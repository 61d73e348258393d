/**
 * The panel's view of a server's sampling request (protocol/sampling.ts `SamplingView`): what the server asks, why the user is
 * asked, the models to choose from, then the model's answer for review. Server text stays raw (the webview marks its
 * invisible characters); images are passed on only as the engine checked them (core/base/samplingRequest.ts).
 */
import type { SamplingAnswer, SamplingAsk } from '../engine/sampling';
import type { SamplingView } from '../../shared/protocol/sampling';
import { verdictWords } from './callCard';

/** The item's title in the switcher. */
export function samplingTitle(ask: Pick<SamplingAsk, 'server'>): string {
  return `${ask.server} asks for a model's answer`;
}

/** What to tell the user when no language model is available. */
export const NO_MODEL_WORDS =
  'No language model is available in VS Code (install or sign in to a chat model provider, such as GitHub Copilot, then ask the server again). You can only decline this request.';

/** The view of `ask` at the request stage, or (with `answer`) at the answer stage. */
export function samplingView(ask: SamplingAsk, answer?: SamplingAnswer, busy = false): SamplingView {
  const r = ask.request;
  const priorities = Object.entries(r.priorities)
    .map(([k, v]) => `${k} ${v}`)
    .join(' · ');
  return {
    server: ask.server,
    calls: ask.calls,
    stage: answer ? 'answer' : 'request',
    ...(r.systemPrompt !== undefined && { systemPrompt: r.systemPrompt }),
    messages: r.messages.map((m) => ({ role: m.role, parts: m.parts.map((p) => ({ ...p })) })),
    maxTokens: r.maxTokens,
    ...(r.maxTokensAsked !== undefined && { maxTokensAsked: r.maxTokensAsked }),
    ...(r.temperature !== undefined && { temperature: r.temperature }),
    stopSequences: r.stopSequences,
    modelHints: r.modelHints,
    ...(priorities && { priorities }),
    notes: ask.models.length === 0 && !answer ? [...r.notes, NO_MODEL_WORDS] : r.notes,
    because:
      ask.verdict.decision === 'allow'
        ? `${verdictWords(ask.verdict.rule)} — the request went to the model without asking; its answer is yours to review.`
        : verdictWords(ask.verdict.rule),
    models: ask.models.map((m) => ({ id: m.id, name: m.name })),
    ...(busy && { busy: true }),
    ...(answer && 'text' in answer && { answer: { text: answer.text, model: answer.model.name } }),
    ...(answer && 'problem' in answer && { problem: answer.problem }),
  };
}
