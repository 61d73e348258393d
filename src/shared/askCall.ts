/**
 * The call an ask form's answer makes (MCPFlow `ask` on a plan whose status is error, invalid or blocked): the planning
 * tool again, with its first call's arguments and the answers merged in. One function for both sides, so the call the
 * form shows above its button (the webview, live as the user types) is the call the gate sends, and the gate can refuse
 * an answer whose shown call is not it. A leaf: imports nothing.
 */

/** What the merge needs of a field: its name and type (a `number` field's numeric text is sent as a number). */
export interface AskCallField {
  name: string;
  type: string;
}

/**
 * The planning call's `base` arguments with `values` merged in, in the order given (an answer replaces an argument of
 * the same name). A `number` field's numeric text becomes a number; everything else is sent as typed. Own keys are
 * data (`__proto__` is an argument like any other).
 */
export function askCallArgs(
  base: Record<string, unknown>,
  fields: readonly AskCallField[],
  values: Record<string, unknown>,
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const put = (key: string, value: unknown) =>
    Object.defineProperty(args, key, { value, enumerable: true, writable: true, configurable: true });
  for (const key of Object.keys(base)) put(key, base[key]);
  for (const key of Object.keys(values)) {
    const value = values[key];
    const field = fields.find((f) => f.name === key);
    const numeric = field?.type === 'number' && typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value));
    put(key, numeric ? Number(value) : value);
  }
  return args;
}
