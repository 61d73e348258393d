/**
 * Servers' sampling requests in the extension: the engine's sampling gate (core/engine/sampling.ts) with the user's
 * policy, the ledger, the panel's sampling items (through brokers: the panel is made later) and VS Code's language
 * models (`vscode.lm`). The 1.101 API takes text only and has no system role: the system prompt goes first, as a user
 * message that says what it is; images are shown to the user but not sent (the request's notes say so).
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { Broker } from '../core/base/broker';
import type { SamplingRequest } from '../core/base/samplingRequest';
import { answerSampling, type SamplingModelInfo, type SamplingPorts, type SamplingUser } from '../core/engine/sampling';
import type { PolicyCall, PolicyVerdict } from '../core/policy/evaluate';
import type { SamplingRecord } from '../core/workflow/workflow';
import type { SamplingHandler } from '../mcp/connection';

/** The panel's sampling items, asked through brokers (unserved: declined). */
export interface SamplingAsks {
  approvals: Broker<SamplingUser['approve']>;
  reviews: Broker<SamplingUser['review']>;
}

/** Characters of an answer per token of its limit, at most: a model that runs on is cut there (the review shows it). */
const CHARS_PER_TOKEN = 8;

/** The language models VS Code offers now, as the user knows them. */
async function models(): Promise<SamplingModelInfo[]> {
  const list = await vscode.lm.selectChatModels();
  return list.map((m) => ({ id: m.id, name: `${m.name} (${m.vendor})` }));
}

/** The request as chat messages: text only, the system prompt first. */
function chatMessages(request: SamplingRequest): vscode.LanguageModelChatMessage[] {
  const text = (parts: SamplingRequest['messages'][number]['parts']) =>
    parts.map((p) => (p.type === 'text' ? p.text : `[${p.type === 'image' ? `image ${p.mimeType}` : p.what}: not sent]`)).join('\n');
  return [
    ...(request.systemPrompt !== undefined ? [vscode.LanguageModelChatMessage.User(`System prompt:\n${request.systemPrompt}`)] : []),
    ...request.messages.map((m) =>
      m.role === 'user' ? vscode.LanguageModelChatMessage.User(text(m.parts)) : vscode.LanguageModelChatMessage.Assistant(text(m.parts)),
    ),
  ];
}

/** Runs `request` on model `id`; the answer is cut at the request's token limit (in characters, generously). */
async function complete(id: string, request: SamplingRequest, signal: AbortSignal, server: string): Promise<string> {
  const [model] = await vscode.lm.selectChatModels({ id });
  if (!model) throw new Error('That language model is not available any more. Decline, and ask the server again.');
  const cancel = new vscode.CancellationTokenSource();
  const onAbort = () => cancel.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const response = await model.sendRequest(
      chatMessages(request),
      { justification: `MCP server '${server}' asks for a model's answer (sampling); you approved it in the Plangate panel.` },
      cancel.token,
    );
    const max = request.maxTokens * CHARS_PER_TOKEN;
    let text = '';
    for await (const chunk of response.text) {
      text += chunk;
      if (text.length >= max) {
        cancel.cancel();
        return text.slice(0, max);
      }
    }
    return text;
  } catch (err) {
    if (err instanceof vscode.LanguageModelError)
      throw new Error(`The model refused or failed (${err.code || 'error'}): ${err.message}. Decline, or ask the server again.`);
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
    cancel.dispose();
  }
}

export interface ExtensionSamplingDeps {
  asks: SamplingAsks;
  policy(call: PolicyCall): PolicyVerdict;
  sandboxed(server: string): boolean;
  record(event: SamplingRecord): void;
  /** The models and the completion; default: VS Code's language models. In-host tests pass their own. */
  models?: Pick<SamplingPorts, 'models' | 'complete'>;
}

/** The connection's sampling handler in the extension. */
export function extensionSampling(deps: ExtensionSamplingDeps): SamplingHandler {
  return (server, params, calls, signal) => {
    const ports: SamplingPorts = {
      policy: deps.policy,
      sandboxed: deps.sandboxed,
      user: { approve: deps.asks.approvals.ask, review: deps.asks.reviews.ask },
      models: deps.models?.models ?? models,
      complete: deps.models?.complete ?? ((id, request, s) => complete(id, request, s, server)),
      record: deps.record,
      newId: randomUUID,
      now: Date.now,
    };
    return answerSampling(ports, server, params, calls, signal);
  };
}
