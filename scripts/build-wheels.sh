#!/usr/bin/env bash
# Builds the Python package for publishing: one abi3 wheel (CPython >= 3.9) for this
# platform plus the source distribution, into dist/ (or $1). For CI: run it on each
# target platform (Linux x86_64/aarch64, macOS, Windows under Git Bash); `measure` is
# compiled only into Linux wheels. Then smoke-tests the wheel in a fresh virtual
# environment. Extra maturin options can be passed in MATURIN_ARGS (e.g.
# "--compatibility manylinux2014 --zig" for portable Linux wheels).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
mkdir -p "$out"

if ! python3 -m maturin --version >/dev/null 2>&1 && ! command -v maturin >/dev/null 2>&1; then
  python3 -m pip install -q --disable-pip-version-check "maturin>=1.5,<2" 2>/dev/null \
    || python3 -m pip install -q --disable-pip-version-check --break-system-packages "maturin>=1.5,<2"
fi
maturin=(maturin)
command -v maturin >/dev/null 2>&1 || maturin=(python3 -m maturin)

start=$(date +%s)
# shellcheck disable=SC2086
"${maturin[@]}" build --release --locked --out "$out" ${MATURIN_ARGS:-}
"${maturin[@]}" sdist --out "$out"
echo "wheel built in $(( $(date +%s) - start )) s"

venv="$(mktemp -d "${TMPDIR:-/tmp}/latscope-wheel.XXXXXX")"
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "$out"/latscope-*.whl
(cd "$venv" && "$venv/bin/python" -c 'import latscope; print("ok: latscope", latscope.__version__, "imports")')
ls -l "$out"
