import type * as vscode from 'vscode';
import { DisposableBase, Emitter } from '../core/base/lifecycle';
import {
  NO_APPROVALS,
  approvalRules,
  readStoredApprovals,
  resetApprovals,
  withApproval,
  withoutApproval,
  type ApprovalLength,
  type StandingApproval,
  type StandingApprovals,
} from '../core/policy/approvals';
import type { SourcedRule } from '../core/policy/rules';

/** Where workspace approvals are kept in the workspace's state. */
export const WORKSPACE_APPROVALS_KEY = 'plangate.approvals.workspace';

/**
 * The card's standing approvals as VS Code holds them: the session's in this object (gone when the window closes or
 * reloads), the workspace's in the workspace's state (kept across reloads, for this folder only). The policy weighs
 * them with the user's rules (PolicySource); the Approvals view lists them with Revoke and Reset.
 */
export class ApprovalStore extends DisposableBase {
  private current: StandingApprovals;
  private rulesNow: SourcedRule[];
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** An approval was added, revoked or reset. */
  readonly onDidChange = this._onDidChange.event;

  constructor(private readonly state: vscode.Memento) {
    super();
    this.current = { ...NO_APPROVALS, workspace: readStoredApprovals(state.get<unknown>(WORKSPACE_APPROVALS_KEY)) };
    this.rulesNow = approvalRules(this.current);
  }

  /** Every standing approval, by length. */
  get all(): StandingApprovals {
    return this.current;
  }

  /** The approvals as policy rules (made once per change: read at every call). */
  get rules(): readonly SourcedRule[] {
    return this.rulesNow;
  }

  async add(length: ApprovalLength, approval: StandingApproval): Promise<void> {
    await this.set(withApproval(this.current, length, approval), length === 'workspace');
  }

  /** Revokes the approval whose rule id is `id`; false when there is none. */
  async revoke(id: string): Promise<boolean> {
    const next = withoutApproval(this.current, id);
    if (next.session.length === this.current.session.length && next.workspace.length === this.current.workspace.length) return false;
    await this.set(next, next.workspace.length !== this.current.workspace.length);
    return true;
  }

  async reset(length: ApprovalLength): Promise<void> {
    await this.set(resetApprovals(this.current, length), length === 'workspace');
  }

  private async set(next: StandingApprovals, save: boolean): Promise<void> {
    this.current = next;
    this.rulesNow = approvalRules(next);
    if (save) await this.state.update(WORKSPACE_APPROVALS_KEY, next.workspace);
    this._onDidChange.fire();
  }
}
