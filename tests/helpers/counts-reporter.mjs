// @web/test-runner prints its counts inside a progress line; this reporter adds one plain closing line,
// `N passed, N failed`, that CI and tests/run-all.sh read.
export function countsReporter() {
  return {
    onTestRunFinished({ sessions }) {
      let passed = 0;
      let failed = 0;
      const walk = (suite) => {
        if (!suite) return;
        for (const t of suite.tests ?? []) {
          if (t.skipped) continue;
          if (t.passed) passed++;
          else failed++;
        }
        for (const s of suite.suites ?? []) walk(s);
      };
      for (const s of sessions) {
        walk(s.testResults);
        // A file that failed to load has errors but no tests: count it, so it cannot pass as "0 failed".
        if (!s.passed && (s.errors?.length ?? 0) > 0) failed++;
      }
      setTimeout(() => process.stdout.write(`${passed} passed, ${failed} failed\n`), 0);
    },
  };
}
