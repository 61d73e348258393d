/** The plan panel protocol, collect mode: a collect-mode form and its submission, and its intents. */
import type { CollectFormSchemaView, ControlValue, FieldChange } from '../forms';

/** A collect-mode form (mcp-rune) and its submission: the form, the staged review, approval and outcome. */
export interface CollectFormView {
  /** The submission: its form, phase, staged entry, approval and outcome (built by core/present/collectView.ts). */
  record: CollectFormSchemaView;
  /** Each field's starting value as its control shows it (staged values, else the form's defaults). */
  initial: Record<string, ControlValue>;
  /** Staged: the entry as the server holds it, field by field (updates: against the current values). */
  changes?: FieldChange[];
  /** The call Submit makes now (undefined when an update changes nothing). */
  submitCall?: { tool: string; args: Record<string, unknown> };
  /** Why Submit is disabled now, in words; undefined when it is enabled. */
  submitBlocker?: string;
  /** The server offers request_approval and check_approval. */
  approvalTools: boolean;
  /** An action in flight. */
  busy?: 'stage' | 'submit' | 'discard' | 'approval';
  /** Approval polling is on: when the next check_approval is due (epoch ms). */
  nextCheckAt?: number;
  /** What went wrong last (stage, approval, submit), in words; cleared by the next action. */
  error?: string;
  /** Problems of the values last read from the form, by field name (`path`). */
  problems?: { path: string; message: string }[];
  /** The server is not running: nothing can be staged or submitted until it is. */
  serverDown?: string;
  /** What the user typed and has not staged or submitted, by field (kept by the extension across window reloads). */
  draft?: Record<string, ControlValue>;
  /** The `ui://` page of the form tool's own app, when the user may switch to it (`switchForm`); absent otherwise. */
  serverApp?: string;
}

/** Webview → extension: collect forms (answered by the collect feature, src/ui/panel/collectFeature.ts). */
export type CollectIntent =
  /**
   * A collect form's buttons: `stage` (Stage for review, with the form's `controls`), `submit` (Submit: the staged
   * values in collect mode, the form's `controls` in direct mode), `discard`, `requestApproval`.
   */
  | {
      type: 'collectForm';
      id: number;
      submissionId: string;
      action: 'stage' | 'submit' | 'discard' | 'requestApproval';
      controls?: Record<string, ControlValue>;
    }
  /** The user changed a collect form's field: the extension keeps the draft (the webview keeps it too, in its state). */
  | { type: 'collectDraft'; submissionId: string; field: string; value: ControlValue }
  /**
   * Switch a collect-mode form between Plangate's form (`native`) and the server's form app (`app`) in place (item
   * `itemId`). The submission is the same either way: what was staged stays staged.
   */
  | { type: 'switchForm'; id: number; itemId: string; to: 'app' | 'native' };

/**
 * What each of these requests (the intents above that carry an `id`) is answered with when it was done, as vscode-eslint's
 * `RequestType<P, R>` names its result (panel.ts `ReplyOf`). `void`: the reply says only that it was done (what changed
 * comes in the next update). A request that was not done is refused with why, in words (panel.ts `Refusal`).
 */
export interface CollectReplies {
  collectForm: void;
  switchForm: void;
}
