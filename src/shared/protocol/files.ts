/** The plan panel protocol, touched files: the globs a plan declares, the changes predicted before approval, the changes a run made, and their intents. */

/** A glob of `safety.touches_files` resolved in the workspace. */
export interface TouchedGlobView {
  glob: string;
  /** Files that match now (capped list; `count` is the full number). */
  files: string[];
  count: number;
  /** The glob reaches outside the workspace (absolute path or `..`). */
  outside: boolean;
  /** Why the count is missing or partial (e.g. no workspace folder, cancelled, capped). */
  note?: string;
}

/** A file a step is predicted to change, before approval. */
export interface PredictedView {
  /** 0-based step index. */
  step: number;
  /** Workspace-relative when `inside`. */
  path: string;
  inside: boolean;
  /** Why the path is flagged (outside the workspace). */
  note?: string;
  change: 'create' | 'modify' | 'delete';
  /** `arguments`: the step carries the full content; `dryRun`: its tool previewed the edit. */
  source: 'arguments' | 'dryRun';
  /** The preview failed (e.g. the edit's text is not in the file): the step would fail the same way. */
  error?: string;
  /**
   * The step's dry run waits for the user: the policy asks about it (or it runs on another server), so it is sent only
   * when the user presses **Preview** (`previewStep`; the single-call card asks where the policy asks). `error` says why.
   */
  press?: boolean;
}

/** A file the plan actually changed, from its checkpoint against the disk. */
export interface ChangeView {
  path: string;
  kind: 'created' | 'modified' | 'deleted';
  /** Outside the plan's declared `touches_files`. */
  undeclared: boolean;
  /** A code file changed although the plan declared `writes_code: false`. */
  unexpectedCode: boolean;
  revertable: boolean;
  /** Why it cannot be reverted. */
  note?: string;
}

/** Webview → extension: a plan's touched files (answered by the plans' files, src/ui/planFiles.ts). */
export type FilesIntent =
  /** The user pressed a step's **Preview** (its `PredictedView.press`): send its dry run through the door. */
  | { type: 'previewStep'; id: number; planId: string; step: number }
  /** Opens predicted change `index` of the plan as a diff (now ↔ predicted). */
  | { type: 'openPredicted'; planId: string; index: number }
  /** Opens an actual change as a diff (checkpoint ↔ disk). */
  | { type: 'openChange'; planId: string; path: string }
  /** Reverts one file (`path`) or the whole plan, after the user confirms. */
  | { type: 'revert'; id: number; planId: string; path?: string };

/**
 * What each of these requests (the intents above that carry an `id`) is answered with when it was done, as vscode-eslint's
 * `RequestType<P, R>` names its result (panel.ts `ReplyOf`). `void`: the reply says only that it was done (what changed
 * comes in the next update). A request that was not done is refused with why, in words (panel.ts `Refusal`).
 */
export interface FilesReplies {
  previewStep: void;
  revert: void;
}
