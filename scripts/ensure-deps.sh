#!/usr/bin/env bash
# Installs what a fresh machine lacks, then the npm packages. Idempotent: a second run only checks.
#   scripts/ensure-deps.sh            toolchain for building and serving
#   scripts/ensure-deps.sh --tests    also clang and its sanitizer/libFuzzer runtimes (the fuzz targets), clang-format
#   scripts/ensure-deps.sh --browser  also Chromium, for the browser tests (npm test passes both)
# On Debian (as root, or with sudo) it installs with apt-get; elsewhere it names the packages and stops.
set -euo pipefail
cd "$(dirname "$0")/.."

want_browser=0 want_tests=0
for arg in "$@"; do
  case "$arg" in
    --browser) want_browser=1 ;;
    --tests) want_tests=1 ;;
    *) echo "ensure-deps.sh: unknown option $arg (use --tests, --browser)"; exit 2 ;;
  esac
done

# package -> a file whose presence proves it is installed
declare -A probe=(
  [emscripten]=/usr/bin/em++
  [libeigen3-dev]=/usr/include/eigen3/Eigen/Core
  [catch2]=/usr/include/catch2/catch.hpp
  [cmake]=/usr/bin/cmake
  [g++]=/usr/bin/g++
  [wabt]=/usr/bin/wasm-objdump
  [ccache]=/usr/bin/ccache  # compiler cache: a fresh clone on this machine reuses the last build's objects
)
order=(emscripten libeigen3-dev catch2 cmake g++ wabt ccache)
if (( want_tests )); then
  # libFuzzer needs clang (the main build uses g++). Bookworm's clang is 14; the fuzzer, ASan and UBSan runtimes
  # are in libclang-rt-14-dev, which clang does not pull in.
  probe[clang]=/usr/bin/clang++
  probe[libclang-rt-14-dev]=/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
  probe[clang-format]=/usr/bin/clang-format  # the format suite's C++ check (Debian's, 14: its output is the reference)
  order+=(clang libclang-rt-14-dev clang-format)
fi
if (( want_browser )); then
  probe[chromium]=/usr/bin/chromium
  probe[fonts-noto-cjk]=/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc  # the Chinese page in screenshots
  order+=(chromium fonts-noto-cjk)
fi

missing=()
for pkg in "${order[@]}"; do [[ -e "${probe[$pkg]}" ]] || missing+=("$pkg"); done

if (( ${#missing[@]} )); then
  echo "residual-lab: missing system packages: ${missing[*]}"
  if [[ -f /etc/debian_version ]] && command -v apt-get >/dev/null; then
    sudo=""
    if (( EUID != 0 )); then
      command -v sudo >/dev/null || { echo "Run as root: apt-get update && apt-get install -y ${missing[*]}"; exit 1; }
      sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -q
    $sudo apt-get install -y -q "${missing[@]}"
  else
    echo "This is not a Debian system. Install these (Debian names; Emscripten 3.1.x, Eigen 3.4, Catch2 2.13,"
    echo "WABT, clang with libFuzzer, Chromium) with your package manager, then run the command again:"
    echo "    ${missing[*]}"
    exit 1
  fi
fi

# npm packages: install when node_modules is missing or older than the lock file.
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
