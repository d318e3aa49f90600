# Sourced by scripts/test.sh and the scripts in scripts/test.d/ (not executable itself).
# The setup step of scripts/test.sh installs every package; a test finding one missing
# fails with the name of what is missing instead of installing it.

# require_cmd CMD...: fails the calling script unless every command is on PATH.
require_cmd() {
  local c
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 && continue
    echo "missing command '$c': run 'bash scripts/test.sh --setup' (it installs every package the tests use)"
    echo "0 passed, 1 failed"
    exit 1
  done
}

# require_py MODULE...: fails the calling script unless python3 imports every module.
require_py() {
  local m
  for m in "$@"; do
    python3 -c "import $m" >/dev/null 2>&1 && continue
    echo "missing Python module '$m': run 'bash scripts/test.sh --setup' (it installs every package the tests use)"
    echo "0 passed, 1 failed"
    exit 1
  done
}

# skip REASON: ends the calling script as skipped (exit 77); scripts/test.sh fails the
# suite unless the script is on docs/testing.md's list of allowed skips.
skip() {
  echo "SKIP: $*"
  exit 77
}

# allowed_skip NAME: true when NAME is on the list in docs/testing.md (a table row whose
# first cell is `NAME`, under "## Allowed skips").
allowed_skip() {
  local here
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  awk -v n="$1" '
    /^## / { on = ($0 == "## Allowed skips") ; next }
    on && /^\| `/ { split($0, c, "`"); if (c[2] == n) found = 1 }
    END { exit !found }' "$here/docs/testing.md"
}

# release_bin: the absolute path of the release `latscope` binary, with CARGO_TARGET_DIR
# relative (to the repository root, the scripts' working directory) or absolute.
release_bin() {
  local d="${CARGO_TARGET_DIR:-target}"
  case "$d" in
    /*) echo "$d/release/latscope" ;;
    *) echo "$PWD/$d/release/latscope" ;;
  esac
}
