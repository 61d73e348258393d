// The module groups `npm run mutate` checks (issue 29: where a mistake costs most), each with the unit test files that
// exercise it: the files written to catch its mistakes (*Mutants.test.ts) and the feature tests that reach it. A test
// file outside a group's list does not count for it; add a file here when it is written for one of these modules.
export const MODULES = {
  door: {
    mutate: ['src/core/engine/door.ts'],
    tests: [
      'test/unit/doorMutants.test.ts',
      'test/unit/door.test.ts',
      'test/unit/doorPreview.test.ts',
      'test/unit/doorReplan.test.ts',
      'test/unit/policyDoor.test.ts',
    ],
  },
  policy: {
    mutate: [
      'src/core/policy/evaluate.ts',
      'src/core/policy/pattern.ts',
      'src/core/policy/nameGlob.ts',
      'src/core/policy/workspacePath.ts',
      'src/core/policy/parse.ts',
    ],
    tests: [
      'test/unit/policyMutants.test.ts',
      'test/unit/policy.test.ts',
      'test/unit/policyGuards.test.ts',
      'test/unit/policySandboxed.test.ts',
    ],
  },
  approval: {
    mutate: ['src/core/plan/approval.ts', 'src/core/base/json.ts', 'src/core/engine/resolve.ts'],
    tests: ['test/unit/approvalMutants.test.ts', 'test/unit/resolve.test.ts', 'test/unit/gateDrift.test.ts'],
  },
  envelope: {
    mutate: ['src/core/plan/envelope.ts'],
    tests: ['test/unit/envelopeMutants.test.ts', 'test/unit/envelope.test.ts', 'test/unit/envelopeFuzz.test.ts'],
  },
  ledger: {
    mutate: ['src/core/workflow/ledger.ts'],
    tests: ['test/unit/ledgerMutants.test.ts', 'test/unit/ledger.test.ts', 'test/unit/ledgerBound.test.ts'],
  },
};
