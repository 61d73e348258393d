/**
 * A server's `sampling/createMessage` request through the gate: the server asks Plangate to run the user's language
 * model on its messages. Nothing reaches a model without a decision, and nothing goes back to the server unreviewed:
 * 1. the request is read and bounded (core/base/samplingRequest.ts); past a limit it is refused without asking;
 * 2. the policy judges it as the `sampling` entrance (a rule's `tool` matches the call in flight on that server):
 *    `deny` refuses it without asking; `ask` (the default) shows it to the user, who approves it (choosing a model) or
 *    declines; `allow` sends it to the model without that first question;
 * 3. the model's answer is shown for review — **always**, even under an allow rule: a rule judges the server and its
 *    request, never the answer (which does not exist yet when the rule is written), and the answer is what the server
 *    receives in the user's name. The user sends it as is, edits it, or declines;
 * 4. the outcome is on the record (`samplingDecided`): the request's summary, who decided, the answer or the refusal.
 * A refusal reaches the server as the JSON-RPC error the MCP specification gives for a user-rejected sampling request
 * (code -1, "User rejected sampling request"), with Plangate's reason after it.
 * Pure: the user, the models, the policy and the ledger are ports.
 */
import { readSamplingRequest, samplingSummary, ANSWER_RECORD_CHARS, type SamplingRequest } from '../base/samplingRequest';
import type { PolicyRecord } from '../plan/plan';
import type { PolicyCall, PolicyVerdict } from '../policy/evaluate';
import type { SamplingRecord } from '../workflow/workflow';

/** A language model the user may choose. */
export interface SamplingModelInfo {
  id: string;
  /** Its name as the user knows it, and who provides it. */
  name: string;
}

/** One request, as the user is asked about it. */
export interface SamplingAsk {
  samplingId: string;
  server: string;
  /** The tool call(s) in flight on that server when it asked. */
  calls: string[];
  request: SamplingRequest;
  /** The policy's verdict (an `ask`, or an `allow` when only the answer is asked about). */
  verdict: PolicyVerdict;
  /** The models the user may choose from; empty: none is available (only Decline is offered). */
  models: SamplingModelInfo[];
}

export type SamplingApproval = { action: 'approve'; modelId: string } | { action: 'decline'; reason?: string };
export type SamplingReview = { action: 'send'; text: string } | { action: 'decline'; reason?: string };
/** What the model said, or why it said nothing. */
export type SamplingAnswer = { text: string; model: SamplingModelInfo } | { problem: string; model?: SamplingModelInfo };

/** Who answers for the user: the panel in the extension, the terminal in the CLI. */
export interface SamplingUser {
  /** Shows the request; resolves with the user's choice. `signal` aborts when the server gave up waiting. */
  approve(ask: SamplingAsk, signal: AbortSignal): Promise<SamplingApproval>;
  /** Shows the model's answer (or why there is none); resolves with what to send, or a decline. */
  review(ask: SamplingAsk, answer: SamplingAnswer, signal: AbortSignal): Promise<SamplingReview>;
}

export interface SamplingPorts {
  policy(call: PolicyCall): PolicyVerdict;
  /** Whether the server runs in a sandbox now (rules may match it). */
  sandboxed?(server: string): boolean;
  /** Who answers; undefined: nobody can, every request is refused (with {@link unanswered} as the reason). */
  user?: SamplingUser;
  /** Why nobody answers, for the refusal and the record (default: nothing here can ask the user). */
  unanswered?: string;
  /** The models available now. */
  models(): Promise<SamplingModelInfo[]>;
  /** Runs `request` on the model `modelId`; rejects when it cannot (no such model, no consent, quota). */
  complete(modelId: string, request: SamplingRequest, signal: AbortSignal): Promise<string>;
  /** Puts the outcome on the record. */
  record(event: SamplingRecord): void;
  newId(): string;
  now(): number;
}

/** The MCP specification's error for a sampling request the user rejected. */
export const SAMPLING_REJECTED_CODE = -1;
export const SAMPLING_REJECTED_MESSAGE = 'User rejected sampling request';

/** The refusal a server gets: a JSON-RPC error with code -1 (the SDK sends `code` and `message` as they are). */
export class SamplingRefusal extends Error {
  readonly code = SAMPLING_REJECTED_CODE;
  constructor(readonly reason: string) {
    super(`${SAMPLING_REJECTED_MESSAGE}: ${reason}`);
  }
}

/** What goes back to the server on Send (MCP `CreateMessageResult`). */
export interface SamplingResult {
  [key: string]: unknown;
  role: 'assistant';
  content: { type: 'text'; text: string };
  model: string;
  stopReason: 'endTurn';
}

function policyRecord(v: PolicyVerdict): PolicyRecord {
  return {
    decision: v.decision,
    ruleId: v.rule.id,
    source: v.rule.source,
    reason: v.rule.reason,
    ...(v.notHonoured && { notHonoured: v.notHonoured.id }),
  };
}

/**
 * Answers one sampling request of `server` (see the module comment): resolves with what goes back, or rejects with a
 * {@link SamplingRefusal}. `calls`: the tool calls in flight on that server; `signal`: aborts when the server cancels.
 */
export async function answerSampling(
  ports: SamplingPorts,
  server: string,
  params: unknown,
  calls: readonly string[],
  signal: AbortSignal,
): Promise<SamplingResult> {
  const samplingId = ports.newId();
  const base = { type: 'samplingDecided' as const, samplingId, server, ...(calls.length > 0 && { calls: [...calls] }) };
  const refuse = (
    by: SamplingRecord['by'],
    outcome: 'declined' | 'refused',
    reason: string,
    rest: Partial<SamplingRecord> & Pick<SamplingRecord, 'request'>,
  ): never => {
    ports.record({ ...base, at: ports.now(), by, outcome, reason, ...rest });
    throw new SamplingRefusal(reason);
  };
  const read = readSamplingRequest(params);
  if ('refused' in read)
    return refuse('plangate', 'refused', `the request was refused without asking: ${read.refused}`, {
      request: { messages: 0, images: 0, textChars: 0, maxTokens: 0 },
    });
  const request = read.request;
  const summary = samplingSummary(request);
  const verdict = ports.policy({
    server,
    tool: calls.length === 1 ? calls[0]! : '',
    args: {},
    entrance: 'sampling',
    ...(ports.sandboxed && { sandboxed: ports.sandboxed(server) }),
  });
  const policy = policyRecord(verdict);
  if (verdict.decision === 'deny')
    return refuse('policy', 'refused', `denied by rule '${verdict.rule.id}': ${verdict.rule.reason}`, { request: summary, policy });
  const user = ports.user;
  if (!user)
    return refuse('plangate', 'refused', ports.unanswered ?? 'nothing here can ask the user about it', { request: summary, policy });
  const models = await ports.models().catch(() => []);
  const ask: SamplingAsk = { samplingId, server, calls: [...calls], request, verdict, models };
  const cancelled = () => signal.aborted && refuse('plangate', 'refused', 'the server stopped waiting', { request: summary, policy });

  let approval: SamplingApproval;
  let by: SamplingRecord['by'] = 'user';
  if (verdict.decision === 'allow' && models.length > 0) {
    approval = { action: 'approve', modelId: models[0]!.id };
    by = 'policy';
  } else {
    approval = await user.approve(ask, signal);
  }
  cancelled();
  if (approval.action === 'decline')
    return refuse('user', 'declined', approval.reason ? `declined: ${approval.reason}` : 'declined', { request: summary, policy });

  const model = models.find((m) => m.id === approval.modelId);
  let answer: SamplingAnswer;
  if (!model) answer = { problem: 'That language model is not available any more.' };
  else {
    try {
      answer = { text: await ports.complete(model.id, request, signal), model };
    } catch (err) {
      answer = { problem: err instanceof Error ? err.message : String(err), model };
    }
  }
  cancelled();
  const review = await user.review(ask, answer, signal);
  cancelled();
  const modelName = 'model' in answer && answer.model ? answer.model.name : undefined;
  if (review.action === 'decline' || !('text' in answer))
    return refuse('user', 'declined', review.action === 'decline' && review.reason ? `declined: ${review.reason}` : 'declined', {
      request: summary,
      policy,
      ...(modelName && { model: modelName }),
    });
  const text = review.text;
  ports.record({
    ...base,
    at: ports.now(),
    // The user reviewed the answer even when a rule approved the request.
    by,
    outcome: 'sent',
    request: summary,
    policy,
    model: answer.model.name,
    answer: text.length > ANSWER_RECORD_CHARS ? `${text.slice(0, ANSWER_RECORD_CHARS)}…` : text,
    answerChars: text.length,
    ...(text !== answer.text && { edited: true }),
  });
  return { role: 'assistant', content: { type: 'text', text }, model: answer.model.id, stopReason: 'endTurn' };
}
