/**
 * What `plangate run` gives the door for a rule's `hook` and a rule's `review: "result"`, as the extension does: the
 * hook runs through the same runner (src/node/decisionHookRunner.ts) with the hooks of `--hooks FILE` (the user's
 * settings.json, or a file holding the value of `plangate.decisionHooks`); a result to review is shown on the terminal
 * and asked about (**Pass on** or **Withhold**). Without a terminal nobody reviews it: it is withheld, said on stderr,
 * and its content is not printed (stdout may be read by a program, the very caller the review stands before).
 */
import type { ResultReview, ResultReviewAnswer } from '../core/engine/door';
import { hookAnswerWords, hookNamed, type DecisionHookConfig, type HookAnswer, type HookRequest } from '../core/policy/decisionHook';
import type { ToolResult } from '../core/base/toolResult';
import { runDecisionHook } from '../node/decisionHookRunner';
import type { Output } from './output';
import type { Prompter } from './prompter';
import { safeText } from './safeText';

const one = (text: unknown, max = 300) => safeText(text, { max });

/** The decision hooks of `--hooks FILE`: undefined when the run was given none. */
export type CliHooks = Record<string, DecisionHookConfig | string> | undefined;

/** The door's `decisionHook` for the CLI: runs the hook a rule names from `hooks`, and says its answer on the terminal. */
export function terminalDecisionHook(hooks: CliHooks, out: Output, cwd = process.cwd()): (request: HookRequest) => Promise<HookAnswer> {
  const where = hooks ? 'the --hooks file' : 'this run: give --hooks FILE (your settings.json, or a file holding plangate.decisionHooks)';
  return async (request) => {
    const config = hookNamed(hooks ?? {}, request.hook, where);
    const answer = 'command' in config ? await runDecisionHook(config, { ...request, cwd }) : config;
    out.info(
      `  Hook '${one(request.hook, 100)}' (rule '${one(request.rule, 100)}') on '${one(request.tool, 100)}' ${one(hookAnswerWords(answer), 1200)}.`,
    );
    return answer;
  };
}

/** The door's `review` for the CLI: the result shown and asked about on the terminal; without one, withheld. */
export function terminalResultReview(
  prompter: Prompter | undefined,
  out: Output,
  print: (result: ToolResult) => void,
): (review: ResultReview) => Promise<ResultReviewAnswer> {
  return async ({ call, rule, result }) => {
    const what = `the result of '${one(call.tool, 100)}' on '${one(call.server, 100)}'`;
    if (!prompter) {
      out.error(
        `plangate run: ${what} is withheld: rule '${one(rule.id, 100)}' asks you to review it first, and there is no terminal to review it on (stdin and stdout must be a terminal; --yes does not pass a result on).`,
      );
      return 'cancelled';
    }
    out.info(`Rule '${one(rule.id, 100)}' asks you to review ${what} before it is passed on (${one(rule.reason, 300)}):`);
    print(result);
    return (await prompter.confirm(`Pass on ${what}? No withholds it.`)) ? 'pass' : 'withhold';
  };
}
