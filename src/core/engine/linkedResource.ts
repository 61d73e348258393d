/**
 * Opening a `resource_link` of a result: `resources/read` of its URI on the server whose result named it — on the
 * record first (the ledger's `resourceRead`, written before the request leaves), then read, then checked and bounded
 * (core/base/resourceLink.ts). The URI goes back only to that server; it is never opened by anything else.
 */
import { isResourceUri, readResourceParts, type ResourceRead } from '../base/resourceLink';
import type { WorkflowEvent } from '../workflow/workflow';

export interface LinkedResourcePorts {
  /** The ledger: the read's record is appended before the request is sent (false: refused, nothing is sent). */
  record(event: WorkflowEvent): boolean;
  /** `resources/read` of `uri` on `server` (rejects when the server is not running or refuses). */
  read(server: string, uri: string): Promise<unknown>;
  now?: () => number;
  newId?: () => string;
}

/**
 * Reads the resource `uri` that a result of `server` linked: the checked parts, or why there is nothing to show (in
 * words naming the server and the URI, with what to do next).
 */
export async function readLinkedResource(ports: LinkedResourcePorts, server: string, uri: string): Promise<ResourceRead> {
  if (!isResourceUri(uri)) return { ok: false, error: `The link of server '${server}' is not a URI that can be read.` };
  const callId = (ports.newId ?? (() => crypto.randomUUID()))();
  let recorded: boolean;
  try {
    recorded = ports.record({ type: 'resourceRead', at: (ports.now ?? Date.now)(), callId, server, uri });
  } catch {
    recorded = false; // the sink failed (disk full, …): the read is not sent unrecorded
  }
  if (!recorded)
    return { ok: false, error: `The read of ${uri} could not be recorded in the ledger, so it was not sent. See the Plangate log.` };
  let read: unknown;
  try {
    read = await ports.read(server, uri);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `Server '${server}' could not read ${uri}: ${message.slice(0, 500)}` };
  }
  const parts = readResourceParts(uri, read);
  return parts.ok ? parts : { ok: false, error: `Server '${server}' gave nothing to show for ${uri}: ${parts.error}.` };
}
