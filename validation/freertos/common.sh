# Shared by validation/freertos/run.sh, tracerecorder/run.sh and systemview/run.sh (sourced):
# the tools every harness build needs, and third-party sources fetched from crates.io into
# a throwaway cargo project (never copied into this repository).

# arm-none-eabi-gcc (Debian) and the unicorn emulator with pyelftools (PyPI), when missing.
ensure_tools() {
    if ! command -v arm-none-eabi-gcc >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q gcc-arm-none-eabi libnewlib-arm-none-eabi
    fi
    if ! python3 -c 'import unicorn, elftools' 2>/dev/null; then
        python3 -m pip install -q 'unicorn==2.1.4' 'pyelftools>=0.29'
    fi
}

# fetch_crates DIR 'name = "=version"'...: a cargo project in DIR depending on the given
# crates, fetched (the sources land in cargo's registry).
fetch_crates() {
    local dir="$1"; shift
    mkdir -p "$dir/src"
    {
        printf '[package]\nname = "fetch-sources"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n'
        printf '%s\n' "$@"
        printf '[workspace]\n'
    } >"$dir/Cargo.toml"
    echo 'fn main() {}' >"$dir/src/main.rs"
    (cd "$dir" && cargo fetch -q)
}

# crate_dir DIR NAME: where cargo unpacked crate NAME of the project in DIR.
crate_dir() {
    (cd "$1" && cargo metadata --format-version 1 -q) |
        python3 -c "import json,os,sys; print(os.path.dirname(next(p['manifest_path'] for p in json.load(sys.stdin)['packages'] if p['name'] == '$2')))"
}

# freertos_kernel DIR: the FreeRTOS-Kernel V11.2.0 sources of freertos-next 0.12.0 fetched
# into the project in DIR (checked to be that version).
freertos_kernel() {
    local k
    k="$(crate_dir "$1" freertos-next)/FreeRTOS-Kernel"
    grep -q 'V11.2.0' "$k/tasks.c" || { echo "$k/tasks.c is not FreeRTOS V11.2.0" >&2; return 1; }
    echo "$k"
}
