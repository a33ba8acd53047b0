#!/usr/bin/env bash
# Proves the boundary check bites: each deliberate violation in .ci/boundary-fixtures must be reported.
set -uo pipefail
cd "$(dirname "$0")/.."
report=$(pnpm exec depcruise --config .dependency-cruiser.cjs --output-type err .ci/boundary-fixtures 2>&1)
status=$?
expected=(
  "domain-imports-unresolvable: .ci/boundary-fixtures/domain/imports-typeorm.ts"
  "domain-imports-unresolvable: .ci/boundary-fixtures/domain/imports-express.ts"
  "domain-imports-node: .ci/boundary-fixtures/domain/imports-node-io.ts"
  "domain-imports-other-workspace-code: .ci/boundary-fixtures/domain/imports-adapter.ts"
  "adapter-imports-adapter: .ci/boundary-fixtures/adapters/persistence-postgres/imports-other-adapter.ts"
  "import-of-app: .ci/boundary-fixtures/adapters/persistence-postgres/imports-app.ts"
  "production-imports-domain-testing: .ci/boundary-fixtures/adapters/persistence-postgres/imports-domain-testing.ts"
  "production-imports-test-support: .ci/boundary-fixtures/adapters/persistence-postgres/imports-test-support.ts"
)
failed=0
if [ "$status" -eq 0 ]; then echo "boundary self-test: the checker accepted deliberate violations"; failed=1; fi
for line in "${expected[@]}"; do
  if ! grep -qF "$line" <<<"$report"; then echo "boundary self-test: not reported: $line"; failed=1; fi
done
if [ "$failed" -ne 0 ]; then echo "$report"; exit 1; fi
echo "boundary self-test: all ${#expected[@]} deliberate violations were rejected"
