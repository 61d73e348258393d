import type * as vscode from 'vscode';
import type { LogEntry } from '../mcp/connection';

/** Writes the MCP layer's log entries (already redacted there) to the "Plangate" LogOutputChannel. */
export function logRegistry(log: vscode.LogOutputChannel): (entry: LogEntry) => void {
  return ({ server, level, text }) => {
    const line = `[${server}] ${text}`;
    switch (level) {
      case 'trace': log.trace(line); break;
      case 'debug': log.debug(line); break;
      case 'info': log.info(line); break;
      case 'warn': log.warn(line); break;
      case 'error': log.error(line); break;
    }
  };
}
