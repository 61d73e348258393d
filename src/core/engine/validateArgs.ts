/**
 * Checks tool arguments against the tool's `inputSchema` before Plangate sends them (edited step arguments,
 * the Call Tool form). Ajv, configured as the MCP SDK configures it for its own servers and clients, so it reads
 * JSON Schema as they write it. Plangate uses Ajv directly (not the SDK's wrapper) because the wrapper flattens
 * errors to text that drops the very names a user needs: which extra field was refused, which values an enum takes.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with `exports.default`; under esbuild/tsx the default import can arrive as the module.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as typeof addFormatsModule;

let ajv: Ajv | undefined;
/** `false` marks a schema Ajv could not compile, so it is not compiled again on every keystroke. */
const cache = new WeakMap<object, ValidateFunction | false>();
/** At most this many problems are named; the rest are counted. */
const MAX_NAMED = 5;
/**
 * Ajv compiles a schema to code, a few milliseconds per subschema, on the extension host's thread: a schema with
 * more subschemas than this is not compiled (tens of seconds for a hostile one) and is left to the server.
 */
export const MAX_SCHEMA_NODES = 1000;

function compiler(): Ajv {
  if (!ajv) {
    ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
    addFormats(ajv);
  }
  return ajv;
}

/**
 * Returns undefined when the arguments fit the schema (or the schema cannot be checked here), else a message
 * naming each field at fault. A schema Ajv cannot compile, one too large to compile quickly, or one whose check
 * cannot finish (a `$ref` that recurses into itself without consuming the data) is left to the server, which
 * validates every call itself.
 */
export function validateArgs(tool: string, schema: unknown, args: Record<string, unknown>): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  let check = cache.get(schema);
  if (check === undefined) {
    try {
      check = exceeds(schema, MAX_SCHEMA_NODES) ? false : compiler().compile(schema);
    } catch {
      check = false;
    }
    cache.set(schema, check);
  }
  if (check === false) return undefined;
  let valid: boolean;
  try {
    valid = check(args) as boolean;
  } catch {
    // A self-referencing schema overflows the stack on any input: it says nothing Plangate could check.
    return undefined;
  }
  if (valid) return undefined;
  const problems = (check.errors ?? []).map(describe);
  const unique = [...new Set(problems)];
  const named = unique.slice(0, MAX_NAMED).join('; ');
  const more = unique.length > MAX_NAMED ? `; and ${unique.length - MAX_NAMED} more` : '';
  return `The arguments do not fit ${tool}'s input schema: ${named}${more}.`;
}

/** Whether `schema` holds more than `limit` objects and arrays; stops counting at the limit, survives cycles. */
function exceeds(schema: object, limit: number): boolean {
  const seen = new Set<object>();
  const stack: object[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop() as object;
    if (seen.has(node)) continue;
    seen.add(node);
    if (seen.size > limit) return true;
    for (const value of Object.values(node)) if (typeof value === 'object' && value !== null) stack.push(value);
  }
  return false;
}

/** `/opts/items/0/name` → `opts.items[0].name`. */
function fieldPath(instancePath: string, child?: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) segments.push(child);
  return segments.reduce((path, s) => (/^\d+$/.test(s) ? `${path}[${s}]` : path ? `${path}.${s}` : s), '');
}

/** One Ajv error in words, always naming the field (the arguments as a whole when the error is at the root). */
function describe(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${fieldPath(e.instancePath, String(params.missingProperty))} is required`;
    case 'additionalProperties':
      return `${fieldPath(e.instancePath, String(params.additionalProperty))} is not a field of ${fieldPath(e.instancePath) || 'the arguments'}`;
    case 'enum':
      return `${fieldPath(e.instancePath) || 'the arguments'} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'type':
      return `${fieldPath(e.instancePath) || 'the arguments'} must be ${String(params.type).replace(/,/g, ' or ')}`;
    default:
      return `${fieldPath(e.instancePath) || 'the arguments'} ${e.message ?? 'is not valid'}`;
  }
}

/**
 * A step's arguments as the user typed them (JSON text): the object to run with, or the problem in words — text that
 * is not JSON, JSON that is not an object, or an object that does not fit the tool's input schema (`schema`, as the
 * step's server lists it now; none: the server checks).
 */
export function parseEditedArgs(tool: string, schema: unknown, argsJson: string): { args: Record<string, unknown> } | { error: string } {
  let args: unknown;
  try {
    args = JSON.parse(argsJson);
  } catch (err) {
    return { error: `The arguments are not valid JSON: ${(err as Error).message}` };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return { error: 'The arguments must be a JSON object, like {"path": "a.txt"}.' };
  const problem = validateArgs(tool, schema, args as Record<string, unknown>);
  return problem ? { error: problem } : { args: args as Record<string, unknown> };
}
