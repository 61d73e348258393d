// A stand-in for a Plangate process, for the crash test in runnerStdio.test.ts: it connects to the fixture over stdio,
// asks it for a plan, approves it, and runs it with a file ledger. The test SIGKILLs this process while a step runs.
// Usage: node --import tsx ledgerRunner.ts <ledger.jsonl> <plan tool> <fixture root> <fixture call log>
// Prints one JSON line {"fixturePid": n} once connected, so the test can make sure the server is gone afterwards.
import { resolvePlan } from '../../../src/core/engine/door';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { approvalHash } from '../../../src/core/plan/approval';
import { classifyResult } from '../../../src/core/plan/classify';
import { runPlan } from '../../../src/core/engine/runner';
import { getPlan } from '../../../src/core/workflow/workflow';
import { openFileLedger } from '../../../src/node/fileLedger';
import { fixtureCommand } from './fixture';
import { ClientInvoker } from './inMemoryInvoker';

async function main(): Promise<void> {
  const [ledgerFile, planTool, root, callLog] = process.argv.slice(2);
  const transport = new StdioClientTransport({ ...fixtureCommand(['--root', root, '--call-log', callLog]), cwd: root, stderr: 'ignore' });
  const client = new Client({ name: 'ledger-runner', version: '0.0.0' });
  await client.connect(transport);
  process.stdout.write(`${JSON.stringify({ fixturePid: transport.pid })}\n`);
  const invoker = new ClientInvoker([{ name: 'fixture', client }]);
  const { workflow } = openFileLedger(ledgerFile);
  const result = await invoker.callTool('fixture', planTool, {});
  const classified = classifyResult(result);
  if (classified.kind !== 'plan') throw new Error(`${planTool} did not return a plan`);
  workflow.dispatch({
    type: 'planReceived',
    at: Date.now(),
    planId: 'crash-plan',
    origin: { server: 'fixture', tool: planTool, args: {}, entrance: 'cli' },
    plan: classified.plan,
  });
  await resolvePlan(workflow, invoker, 'crash-plan', { allowCrossServer: true });
  workflow.dispatch({
    type: 'approved',
    at: Date.now(),
    planId: 'crash-plan',
    approvalHash: approvalHash(getPlan(workflow.state, 'crash-plan')!),
  });
  await runPlan(workflow, 'crash-plan', {
    invoker,
    classify: (r) => classifyResult(r),
    host: { confirmStep: async () => true, askUser: async () => undefined, approveNested: async () => false },
    stepTimeoutMs: 600_000,
  });
  await client.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`ledgerRunner: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
