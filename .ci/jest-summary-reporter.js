// Records each Jest run's totals so `.ci/run` can print one closing line for the whole monorepo.
const fs = require('node:fs');
const path = require('node:path');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const dir = process.env.PRIOR_AUTH_TEST_SUMMARY_DIR;
    if (!dir) return;
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${process.pid}-${Date.now()}.json`);
    fs.writeFileSync(
      file,
      JSON.stringify({
        cwd: process.cwd(),
        passed: results.numPassedTests,
        failed: results.numFailedTests,
        skipped: results.numPendingTests + results.numTodoTests,
        suitesFailed: results.numFailedTestSuites,
        runtimeErrorSuites: results.numRuntimeErrorTestSuites,
        // Each file's wall time, so CI can name the files that make a test pass long.
        files: results.testResults.map((file) => ({
          path: path.relative(process.cwd(), file.testFilePath),
          seconds: (file.perfStats.end - file.perfStats.start) / 1000,
        })),
      }),
    );
  }
}

module.exports = SummaryReporter;
