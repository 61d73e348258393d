// Test only: a language model whose answer is deterministic and echoes the end of the last user message (40 characters), so the sampling e2e can check
// that what the server gets back is the reviewed (edited) answer of a real `vscode.lm` model. Plain CommonJS, no build.
const vscode = require('vscode');

const MODEL = {
  id: 'e2e-echo',
  name: 'E2E Echo',
  family: 'e2e-echo',
  version: '1',
  maxInputTokens: 8192,
  maxOutputTokens: 1024,
  capabilities: {},
};

/** The text of a chat message's text parts. */
function textOf(message) {
  return message.content
    .filter((p) => p instanceof vscode.LanguageModelTextPart)
    .map((p) => p.value)
    .join('');
}

function activate(context) {
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('e2e-fake', {
      provideLanguageModelChatInformation: () => [MODEL],
      provideLanguageModelChatResponse: (_model, messages, _options, progress) => {
        const users = messages.filter((m) => m.role === vscode.LanguageModelChatMessageRole.User);
        const last = users.length > 0 ? textOf(users[users.length - 1]) : '';
        progress.report(new vscode.LanguageModelTextPart(`E2E model answer to: ${last.slice(-40)}`));
      },
      provideTokenCount: (_model, text) => Math.ceil((typeof text === 'string' ? text : textOf(text)).length / 4),
    }),
  );
}

module.exports = { activate, deactivate() {} };
