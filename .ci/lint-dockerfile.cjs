// Lints the Dockerfile where no Docker daemon can build it: syntax and instruction checks of dockerfile-utils
// (the validator behind the Dockerfile language server). Exits non-zero on any warning or error.
const { readFileSync } = require('node:fs');
const { validate } = require('dockerfile-utils');

const file = process.argv[2] ?? 'Dockerfile';
const diagnostics = validate(readFileSync(file, 'utf8'));
for (const d of diagnostics) {
  console.log(`${file}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${d.message}`);
}
console.log(`${file}: ${diagnostics.length} problem(s)`);
process.exit(diagnostics.length === 0 ? 0 : 1);
