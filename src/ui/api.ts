import type { PolicySource } from './policy';
import type { Gate } from '../core/gate';
import type { Workflow } from '../core/ledger';
import type { ServerRegistry } from '../mcp/registry';
import type { PlanPanel } from './planPanel';
import type { ServerConfigs } from './serverConfigs';
import type { ToolCaller } from './callTool';

/**
 * What `activate()` returns: the running services, for in-host tests and for extensions that build on
 * Plangate. Not a stable public API yet.
 */
export interface PlangateApi {
  workflow: Workflow;
  gate: Gate;
  registry: ServerRegistry;
  configs: ServerConfigs;
  panel: PlanPanel;
  caller: ToolCaller;
  /** The policy's sources (settings and the workspace file) and its verdicts. */
  policy: PolicySource;
}
