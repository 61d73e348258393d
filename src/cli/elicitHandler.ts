/**
 * Answers a server's `elicitation/create` (form mode) from the CLI. On a terminal: the message, "Answer it?", then one
 * field at a time with its default offered (Enter takes it); a bad value is explained and asked again. Without a
 * terminal: with `--yes`, a request whose required fields all have defaults is accepted with the defaults; every other
 * request is declined. URL-mode requests are declined (the CLI declares form mode only).
 */
import type { ElicitAnswer, ElicitHandler, ElicitParams } from '../mcp/connection';
import type { Output } from './output';
import type { Prompter } from './prompter';
import { safeText } from './safeText';

type Value = string | number | boolean | string[];
type Schema = Record<string, unknown>;

export interface ElicitDeps {
  out: Output;
  /** The terminal, when there is one. */
  prompter?: Prompter;
  /** `--yes` was given. */
  yes: boolean;
}

const one = (text: unknown, max = 300) => safeText(text, { max });
const MAX_TRIES = 5;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The choices of an enum-like schema (`enum`, `oneOf:[{const,title}]`, or an array's `items`): value and label. */
function choices(schema: Schema): { value: string; label: string }[] | undefined {
  const source = schema.type === 'array' && isRecord(schema.items) ? schema.items : schema;
  if (Array.isArray(source.enum)) {
    const names = Array.isArray(source.enumNames) ? source.enumNames : [];
    return source.enum
      .filter((v): v is string => typeof v === 'string')
      .map((value, i) => ({ value, label: typeof names[i] === 'string' ? (names[i] as string) : value }));
  }
  const list = Array.isArray(source.oneOf) ? source.oneOf : Array.isArray(source.anyOf) ? source.anyOf : undefined;
  if (!list) return undefined;
  return list
    .filter(isRecord)
    .filter((o) => typeof o.const === 'string')
    .map((o) => ({ value: o.const as string, label: typeof o.title === 'string' ? o.title : (o.const as string) }));
}

/** Checks a value against a field's schema: undefined when it fits, else why not. */
function problemWith(schema: Schema, value: unknown): string | undefined {
  const type = schema.type;
  const options = choices(schema);
  if (type === 'boolean') return typeof value === 'boolean' ? undefined : 'expected yes or no';
  if (type === 'number' || type === 'integer') {
    if (typeof value !== 'number' || !Number.isFinite(value)) return 'expected a number';
    if (type === 'integer' && !Number.isInteger(value)) return 'expected a whole number';
    if (typeof schema.minimum === 'number' && value < schema.minimum) return `must be at least ${schema.minimum}`;
    if (typeof schema.maximum === 'number' && value > schema.maximum) return `must be at most ${schema.maximum}`;
    return undefined;
  }
  if (type === 'array') {
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return 'expected a list of values';
    if (options && !value.every((v) => options.some((o) => o.value === v)))
      return `each value must be one of: ${options.map((o) => o.value).join(', ')}`;
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) return `choose at least ${schema.minItems}`;
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return `choose at most ${schema.maxItems}`;
    return undefined;
  }
  if (typeof value !== 'string') return 'expected text';
  if (options && !options.some((o) => o.value === value)) return `must be one of: ${options.map((o) => o.value).join(', ')}`;
  if (typeof schema.minLength === 'number' && value.length < schema.minLength) return `must be at least ${schema.minLength} characters`;
  if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) return `must be at most ${schema.maxLength} characters`;
  return undefined;
}

/** Reads a typed answer for a field (an option may be given by its number). */
function parseAnswer(schema: Schema, text: string): { value: Value } | { problem: string } {
  const t = text.trim();
  const options = choices(schema);
  const pick = (s: string) => {
    const n = Number(s);
    if (options && Number.isInteger(n) && n >= 1 && n <= options.length) return options[n - 1]!.value;
    return options?.find((o) => o.label === s)?.value ?? s;
  };
  let value: Value;
  switch (schema.type) {
    case 'boolean':
      if (/^(y|yes|true)$/i.test(t)) value = true;
      else if (/^(n|no|false)$/i.test(t)) value = false;
      else return { problem: 'answer y or n' };
      break;
    case 'number':
    case 'integer':
      value = t === '' ? NaN : Number(t);
      break;
    case 'array':
      value = t
        .split(',')
        .map((s) => pick(s.trim()))
        .filter((s) => s !== '');
      break;
    default:
      value = options ? pick(t) : text;
  }
  const problem = problemWith(schema, value);
  return problem ? { problem } : { value };
}

function describeField(name: string, schema: Schema, required: boolean): string {
  const title = typeof schema.title === 'string' && schema.title ? schema.title : name;
  const options = choices(schema);
  let kind = '';
  if (options)
    kind = ` (${schema.type === 'array' ? 'comma-separated, ' : ''}one of: ${options.map((o, i) => `${i + 1}=${o.label === o.value ? o.value : `${o.value} "${o.label}"`}`).join(', ')})`;
  else if (schema.type === 'boolean') kind = ' (y/n)';
  else if (schema.type === 'number' || schema.type === 'integer') {
    const range =
      typeof schema.minimum === 'number' || typeof schema.maximum === 'number' ? ` ${schema.minimum ?? ''}…${schema.maximum ?? ''}` : '';
    kind = ` (${schema.type === 'integer' ? 'whole number' : 'number'}${range})`;
  } else if (typeof schema.format === 'string') kind = ` (${schema.format})`;
  const def = schema.default;
  const shown =
    def === undefined ? '' : ` [${Array.isArray(def) ? def.join(',') : typeof def === 'boolean' ? (def ? 'y' : 'n') : String(def)}]`;
  return one(`${title}${required ? '' : ' (optional)'}${kind}${shown}: `, 600);
}

/** Sets `key` as an own data property (a field named `__proto__` stays data). */
function put(target: Record<string, Value>, key: string, value: Value): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

async function askOnTerminal(
  server: string,
  message: string,
  properties: Record<string, unknown>,
  required: string[],
  deps: ElicitDeps,
  prompter: Prompter,
): Promise<ElicitAnswer> {
  const { out } = deps;
  out.info(`Server '${one(server, 100)}' asks: ${safeText(message, { keepNewlines: true, max: 2000 })}`);
  if (!(await prompter.confirm('Answer it?', true))) return { action: 'decline' };
  out.info('(Enter takes the default in brackets; an empty answer leaves an optional field out.)');
  const content: Record<string, Value> = {};
  for (const name of Object.keys(properties)) {
    const schema = isRecord(properties[name]) ? (properties[name] as Schema) : {};
    const isRequired = required.includes(name);
    if (typeof schema.description === 'string' && schema.description) out.info(`  ${one(schema.description)}`);
    let done = false;
    for (let attempt = 0; attempt < MAX_TRIES && !done; attempt++) {
      const text = await prompter.ask(`  ${describeField(name, schema, isRequired)}`);
      if (text === undefined) return { action: 'cancel' };
      if (text.trim() === '') {
        if (schema.default !== undefined && problemWith(schema, schema.default) === undefined) {
          put(content, name, schema.default as Value);
          done = true;
        } else if (!isRequired) {
          done = true;
        } else {
          out.info('  This field is required.');
        }
        continue;
      }
      const parsed = parseAnswer(schema, text);
      if ('problem' in parsed) {
        out.info(`  ${one(parsed.problem)}; try again.`);
        continue;
      }
      put(content, name, parsed.value);
      done = true;
    }
    if (!done) {
      out.info(`  No valid answer for ${one(name, 80)}; the request is cancelled.`);
      return { action: 'cancel' };
    }
  }
  return { action: 'accept', content };
}

/** The CLI's elicitation handler (see the module comment). Never throws; a malformed request is declined. */
export function elicitHandler(deps: ElicitDeps): ElicitHandler {
  return async (server: string, params: ElicitParams): Promise<ElicitAnswer> => {
    const p = params as Record<string, unknown>;
    const message = typeof p.message === 'string' ? p.message : '';
    if (p.mode === 'url') {
      deps.out.error(`plangate: server '${one(server, 100)}' asked to open a URL (${one(p.url, 300)}); the CLI declines URL requests.`);
      return { action: 'decline' };
    }
    const schema = isRecord(p.requestedSchema) ? p.requestedSchema : {};
    const properties = isRecord(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
    if (deps.prompter) return askOnTerminal(server, message, properties, required, deps, deps.prompter);

    const defaults: Record<string, Value> = {};
    for (const name of Object.keys(properties)) {
      const field = isRecord(properties[name]) ? (properties[name] as Schema) : {};
      if (field.default !== undefined && problemWith(field, field.default) === undefined) put(defaults, name, field.default as Value);
    }
    const uncovered = required.filter((r) => !Object.hasOwn(defaults, r));
    if (deps.yes && uncovered.length === 0) {
      deps.out.error(`plangate: server '${one(server, 100)}' asked: ${one(message)} — accepted with the defaults (--yes, no terminal).`);
      return { action: 'accept', content: defaults };
    }
    const why = !deps.yes
      ? 'there is no terminal to answer on'
      : `there is no terminal, and ${uncovered.map((u) => `'${one(u, 80)}'`).join(', ')} ha${uncovered.length === 1 ? 's' : 've'} no default`;
    deps.out.error(`plangate: server '${one(server, 100)}' asked: ${one(message)} — declined: ${why}.`);
    return { action: 'decline' };
  };
}
