/**
 * Checks tool arguments against the tool's `inputSchema` before Plangate sends them (edited step arguments,
 * the Call Tool form). Uses the SDK's Ajv validator, so it reads JSON Schema as the SDK's servers write it.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

let validator: AjvJsonSchemaValidator | undefined;
const cache = new WeakMap<object, JsonSchemaValidator<unknown>>();

/** Returns undefined when the arguments fit the schema, else a message naming the fields at fault. */
export function validateArgs(tool: string, schema: unknown, args: Record<string, unknown>): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  let check = cache.get(schema);
  if (!check) {
    validator ??= new AjvJsonSchemaValidator();
    try {
      check = validator.getValidator<unknown>(schema as JsonSchemaType);
    } catch {
      // A schema Ajv cannot compile is the server's problem: the server validates the call itself.
      return undefined;
    }
    cache.set(schema, check);
  }
  const result = check(args);
  return result.valid ? undefined : `The arguments do not fit ${tool}'s input schema: ${result.errorMessage.replace(/^data\/?/, '').replace(/, data\//g, ', ')}`;
}
