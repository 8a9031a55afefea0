#!/usr/bin/env bash
# cannbot's one-line developer commands (the README's two commands).
#
#   tools/dev.sh demo   install what is missing, build, run the main job on a bundled example
#   tools/dev.sh test   install what is missing, build with AddressSanitizer and
#                       UndefinedBehaviorSanitizer, run every test
#   tools/dev.sh build  install what is missing and build
#
# Works as root on a fresh Debian 12 machine with only a compiler and cmake; elsewhere it
# uses sudo for apt-get. CANNBOT_BUILD_DIR (default ./build) and CANNBOT_TEST_BUILD_DIR
# (default ./build-test) choose where the release and the test builds go.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${CANNBOT_BUILD_DIR:-build}

PACKAGES=(
  g++ cmake make pkg-config git
  dpkg-dev file  # `cpack -G DEB` (dpkg-shlibdeps reads the binaries' library needs)
  libcpp-httplib-dev nlohmann-json3-dev libspdlog-dev libsqlite3-dev libcurl4-openssl-dev
  libcli11-dev libgtest-dev libgmock-dev libffi-dev libssl-dev libseccomp-dev
  libyaml-cpp-dev libtomlplusplus-dev
  libpq-dev   # the PostgreSQL job store (store/postgres.cc)
  postgresql  # tests only: they start a private server (tests/integration/postgres_server.h)
  chromium    # tests only: the job page in a real browser (tests/integration/headless_browser.h)
  libcsv-dev  # benchmark only: the comparison in bench/profile_import_bench.cc
  libopenblas-dev libdnnl-dev  # benchmark only: vendor rows of bench/ops_bench.cc
  wrk        # benchmark only: bench/daemon_bench.cc (it has its own load client without it)
)

install_missing() {
  local missing=()
  for package in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$package")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "Installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD_DIR" -j"$(nproc)"
}

# The test build: the project's own code under AddressSanitizer + UndefinedBehaviorSanitizer
# (kernels and the runner that hosts them are not instrumented: the runner's sandbox takes
# away what the sanitizer runtimes need), at -Og, which compiles as fast as -O0 and runs the
# reference kernels fast enough. The whole suite runs once, here: it is the only build CI makes.
TEST_BUILD_DIR=${CANNBOT_TEST_BUILD_DIR:-build-test}

test_build() {
  cmake -S . -B "$TEST_BUILD_DIR" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-Og -g1" \
    -DCANNBOT_SANITIZE=ON >/dev/null
  cmake --build "$TEST_BUILD_DIR" -j"$(nproc)"
}

run_tests() {
  # Measure the roofline once, before the suite loads the machine, into the store the
  # integration tests share (a model measured under load would be too low).
  "$TEST_BUILD_DIR/cannbot" machine --remeasure --db "$TEST_BUILD_DIR/tests/integration-store.db" \
    >/dev/null
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$TEST_BUILD_DIR" --output-on-failure -j"$(nproc)"
}

case "${1:-}" in
  build)
    install_missing
    build
    ;;
  demo)
    install_missing
    build
    echo
    echo "== cannbot suggest, offline: the bundled naive swish kernel and its profile =="
    "$BUILD_DIR/cannbot" suggest examples/swish/naive.cpp --op swish \
      --profile examples/swish/profile.json --out "$BUILD_DIR/swish.suggested.cpp"
    ;;
  test)
    install_missing
    test_build
    run_tests
    ;;
  *)
    echo "usage: tools/dev.sh demo|test|build" >&2
    exit 2
    ;;
esac
