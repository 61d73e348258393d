// A stand-in for a Plangate process, for the group-commit crash test in ledgerCrash.test.ts: it connects to the fixture
// over stdio and runs plans one after another with a file ledger, each of `steps` noop steps whose arguments name the
// plan and the step ({plan: k, step: i}), so the fixture's call log says which step of which plan was sent. The test
// SIGKILLs it at a random moment. Prints JSON lines: {"fixturePid": n} once connected, {"settled": "p<k>"} as soon as
// runPlan returned for plan k (stdout to a pipe is written synchronously on Linux: the line is out before the next step).
// Usage: node ledgerKillee.js <ledger.jsonl> <fixture command as JSON {command, args}> <fixture root> <plans> <steps>
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { approvalHash } from '../../../src/core/plan/approval';
import { classifyResult } from '../../../src/core/plan/classify';
import { resolvePlan } from '../../../src/core/engine/door';
import type { ToolInvoker } from '../../../src/core/engine/invoker';
import { parseEnvelope } from '../../../src/core/plan/envelope';
import { runPlan } from '../../../src/core/engine/runner';
import { getPlan } from '../../../src/core/workflow/workflow';
import { openFileLedger } from '../../../src/node/fileLedger';
import { ClientInvoker } from './inMemoryInvoker';

async function main(): Promise<void> {
  const [ledgerFile, fixture, root, plans, steps] = process.argv.slice(2);
  const { command, args } = JSON.parse(fixture!) as { command: string; args: string[] };
  const transport = new StdioClientTransport({ command, args, cwd: root, stderr: 'ignore' });
  const client = new Client({ name: 'ledger-killee', version: '0.0.0' });
  await client.connect(transport);
  const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
  say({ fixturePid: transport.pid });
  // The fixture's catalog, listed once (the door asks for it at every step; listing and hashing 25 tools each time
  // would make the run slow and the kills land mostly between steps).
  const listed = new ClientInvoker([{ name: 'fixture', client }]);
  const catalog = await listed.catalog();
  const invoker: ToolInvoker = { catalog: async () => catalog, callTool: (...a) => listed.callTool(...a) };
  const { workflow } = openFileLedger(ledgerFile!);
  for (let k = 0; k < Number(plans); k++) {
    const planId = `p${k}`;
    const parsed = parseEnvelope({
      kind: 'orchestrated_plan',
      version: '1',
      status: 'ok',
      instruction: `Plan ${k}`,
      next_actions: Array.from({ length: Number(steps) }, (_, i) => ({ tool: 'noop', args: { plan: k, step: i } })),
    });
    if (!parsed.ok) throw new Error('the plan did not parse');
    workflow.dispatch({
      type: 'planReceived',
      at: Date.now(),
      planId,
      origin: { server: 'fixture', tool: 'made_here', args: {}, entrance: 'cli' },
      plan: parsed.plan,
    });
    await resolvePlan(workflow, invoker, planId, { allowCrossServer: true });
    workflow.dispatch({ type: 'approved', at: Date.now(), planId, approvalHash: approvalHash(getPlan(workflow.state, planId)!) });
    const done = await runPlan(workflow, planId, {
      invoker,
      classify: (r) => classifyResult(r),
      host: { confirmStep: async () => true, askUser: async () => undefined, approveNested: async () => false },
    });
    if (done.phase !== 'finished' || done.outcome !== 'completed') throw new Error(`plan ${planId} ended ${done.phase}`);
    say({ settled: planId });
  }
  await client.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`ledgerKillee: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
