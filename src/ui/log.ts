import type * as vscode from 'vscode';
import type { StateEvent } from '../core/workflow/workflow';
import type { LogEntry } from '../mcp/connection';

/** Writes the MCP layer's log entries (already redacted there) to the "Plangate" LogOutputChannel. */
export function logRegistry(log: vscode.LogOutputChannel): (entry: LogEntry) => void {
  return ({ server, level, text }) => {
    const line = `[${server}] ${text}`;
    switch (level) {
      case 'trace':
        log.trace(line);
        break;
      case 'debug':
        log.debug(line);
        break;
      case 'info':
        log.info(line);
        break;
      case 'warn':
        log.warn(line);
        break;
      case 'error':
        log.error(line);
        break;
    }
  };
}

/** Logs every workflow decision and step transition (progress excepted) with the plan it concerns. */
export function logWorkflow(log: vscode.LogOutputChannel): (change: { event: StateEvent }) => void {
  return ({ event }) => {
    if (event.type === 'stepProgress') return;
    const plan = 'planId' in event ? ` plan ${event.planId.slice(0, 8)}` : '';
    const step = 'step' in event ? ` step ${event.step + 1}` : '';
    switch (event.type) {
      case 'planReceived':
        log.info(
          `Plan received from ${event.origin.server}/${event.origin.tool} (${event.plan.status}, ${event.plan.next_actions.length} steps)${plan}`,
        );
        break;
      case 'rejected':
        log.info(`Rejected${plan}${event.reason ? `: ${event.reason}` : ''}`);
        break;
      case 'stepStarted':
        log.info(`Step started${plan}${step} on ${event.server}${event.crossServer ? ' (cross-server)' : ''}`);
        break;
      case 'stepFailed':
        log.warn(`Step failed${plan}${step}: ${event.error}`);
        break;
      case 'argsEdited':
        log.info(`Arguments edited${plan}${step}`);
        break;
      case 'resolved':
        log.info(`Servers resolved${plan}: ${event.steps.map((r, i) => `${i + 1}→${'missing' in r ? 'none' : r.server}`).join(', ')}`);
        break;
      case 'stepDrifted':
        log.warn(`Not sent, waits for a new approval${plan}${step}: ${event.change}`);
        break;
      default:
        log.info(`${event.type}${plan}${step}`);
    }
  };
}
