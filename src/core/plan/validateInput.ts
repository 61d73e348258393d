/**
 * What `plangate validate` checks: text holding an `orchestrated_plan` envelope, a CallToolResult (or a JSON-RPC
 * response carrying one), or prose with a ```json fenced envelope. Reports every problem with its JSON path
 * relative to the envelope, wherever the envelope sits.
 */
import { classifyResult, fencedBlocks, jsonObjectBounds, type PlanSource } from './classify';
import { describeValue, isPlainObject, LIMITS, parseEnvelope } from './envelope';
import { looksLikeCollectForm, parseCollectForm } from './collectForm';
import type { OrchestratedPlan, Problem } from './plan';

export interface ValidateReport {
  /** True only for a valid orchestrated_plan envelope. */
  valid: boolean;
  /** What the input holds: a plan (valid or not), an mcp-rune collect-mode form, or neither. */
  kind: 'plan' | 'collect_form' | 'plain';
  /** The normalised envelope, when valid. */
  plan?: OrchestratedPlan;
  /** Why it is not valid; paths are relative to the envelope (`""` is the envelope, or the input as a whole). */
  problems?: Problem[];
  /** What was tolerated in a valid plan (e.g. a camelCase field name that MCPFlow spells in snake_case). */
  warnings?: Problem[];
  /** Where the envelope was: the whole input, or a CallToolResult's structuredContent, text block or fenced block. */
  source?: 'input' | PlanSource;
}

const NOT_FOUND = 'no orchestrated_plan envelope found';

/**
 * Validates `text` as `plangate validate` does. Never throws.
 * - A JSON object with `kind` is read as an envelope (another kind is reported at `kind`).
 * - A JSON object with `content` or `structuredContent` is a CallToolResult, classified like a live result;
 *   `{"jsonrpc":…, "result": {…}}` is unwrapped first.
 * - A collect-mode form payload is `valid: false, kind: "collect_form"` (it is not a plan).
 * - Other text is searched for a ```json fenced envelope. Empty input, malformed JSON and plain text are
 *   `valid: false, kind: "plain"` with a problem saying what was found instead.
 */
export function validateInput(text: string): ValidateReport {
  try {
    return validateUnguarded(text);
  } catch (err) {
    return plain(`could not read the input: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function plain(message: string, path = ''): ValidateReport {
  return { valid: false, kind: 'plain', problems: [{ path, message }] };
}

function validateUnguarded(text: string): ValidateReport {
  if (typeof text !== 'string' || text.trim() === '') {
    return plain('the input is empty; expected an orchestrated_plan envelope, a CallToolResult, or text with a ```json fenced envelope');
  }
  if (text.length > LIMITS.maxInputChars) {
    return plain(
      `the input is ${text.length.toLocaleString('en-US')} characters; Plangate reads at most ${LIMITS.maxInputChars.toLocaleString('en-US')}`,
    );
  }
  const bounds = jsonObjectBounds(text);
  if (bounds) {
    let value: unknown;
    let syntaxError: string | undefined;
    try {
      value = JSON.parse(text.slice(bounds.start, bounds.end));
    } catch (err) {
      syntaxError = err instanceof Error ? err.message : String(err);
    }
    if (syntaxError === undefined) return validateJson(value);
    if (!text.includes('```')) return plain(`the input is not valid JSON: ${syntaxError}`);
  } else if (!text.includes('```')) {
    const first = text.trimStart().charAt(0);
    return plain(
      first === '['
        ? `${NOT_FOUND}: the input is a JSON array; expected an object`
        : `${NOT_FOUND}: the input is neither a JSON object nor text with a \`\`\`json fenced block`,
    );
  }
  return fromClassification({ content: [{ type: 'text', text }] }, text);
}

function validateJson(value: unknown): ValidateReport {
  if (!isPlainObject(value)) return plain(`${NOT_FOUND}: expected a JSON object, got ${describeValue(value)}`);
  if (Object.hasOwn(value, 'kind')) {
    if (value.kind !== 'orchestrated_plan') {
      return {
        valid: false,
        kind: 'plain',
        problems: [
          {
            path: 'kind',
            message: `expected "orchestrated_plan", got ${describeValue(value.kind)}; this is not an orchestrated_plan envelope`,
          },
        ],
      };
    }
    return fromParse(value, 'input');
  }
  let result: Record<string, unknown> = value;
  if (isPlainObject(value.result) && (Object.hasOwn(value, 'jsonrpc') || Object.hasOwn(value, 'id'))) result = value.result;
  if (Array.isArray(result.content) || Object.hasOwn(result, 'structuredContent')) return fromClassification(result);
  if (looksLikeCollectForm(value)) {
    const form = parseCollectForm(value);
    return collectForm(form.ok ? undefined : form.problems);
  }
  return {
    valid: false,
    kind: 'plain',
    problems: [
      {
        path: 'kind',
        message: `Required: this JSON object is neither an orchestrated_plan envelope (kind "orchestrated_plan") nor a CallToolResult (content)`,
      },
    ],
  };
}

function fromParse(value: unknown, source: 'input' | PlanSource): ValidateReport {
  const parsed = parseEnvelope(value);
  if (!parsed.ok) return { valid: false, kind: 'plan', problems: parsed.problems, source };
  const report: ValidateReport = { valid: true, kind: 'plan', plan: parsed.plan, source };
  if (parsed.warnings) report.warnings = parsed.warnings;
  return report;
}

function collectForm(extra?: Problem[]): ValidateReport {
  return {
    valid: false,
    kind: 'collect_form',
    problems: [{ path: '', message: 'this is an mcp-rune collect-mode form, not an orchestrated_plan envelope' }, ...(extra ?? [])],
  };
}

function fromClassification(result: Record<string, unknown>, rawText?: string): ValidateReport {
  const c = classifyResult(result);
  switch (c.kind) {
    case 'plan': {
      const report: ValidateReport = { valid: true, kind: 'plan', plan: c.plan, source: c.source };
      if (c.warnings) report.warnings = c.warnings;
      return report;
    }
    case 'invalid_plan':
      return { valid: false, kind: 'plan', problems: c.problems, source: c.source };
    case 'collect_form':
      return collectForm();
    case 'collect_error':
      if (c.error.type === 'invalid_form') return collectForm(c.error.problems);
      return plain(`${NOT_FOUND}; the result is an mcp-rune form error: ${c.error.message}`);
    case 'plain':
      return plain(rawText !== undefined ? fenceDiagnosis(rawText) : `${NOT_FOUND} in structuredContent or in any text block`);
  }
}

/** Why text with fences held no envelope: the first ```json block that does not parse, or what the blocks held. */
function fenceDiagnosis(text: string): string {
  let jsonFences = 0;
  for (const block of fencedBlocks(text)) {
    if (!block.json) continue;
    jsonFences++;
    const body = text.slice(block.bodyStart, block.bodyEnd);
    const line = lineOf(text, block.bodyStart);
    if (body.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(body);
      if (!isPlainObject(value))
        return `${NOT_FOUND}: the fenced block at line ${line} holds ${describeValue(value)}, not an envelope object`;
      if (value.kind !== 'orchestrated_plan')
        return `${NOT_FOUND}: the fenced block at line ${line} has kind ${describeValue(value.kind)}, not "orchestrated_plan"`;
    } catch (err) {
      return `${NOT_FOUND}: the fenced block at line ${line} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  return jsonFences === 0 ? `${NOT_FOUND}: the text has no \`\`\`json fenced block` : `${NOT_FOUND} in the text's fenced blocks`;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
