#!/bin/sh
# The sanitizer runs of CI, each in a build tree of its own under <dir>:
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer (gcc), the suite
#         but the Python and install tests (which load or build the library
#         outside the sanitizer) and, for CI's time, the batch, report and
#         FFmpeg drivers (which run the same CLI code on many jobs and clips)
#         and the per-fixture OpenCL tests (opencl_parity covers PoCL)
#   tsan  ThreadSanitizer (gcc), every test that runs threads
#   fuzz  libFuzzer (clang) with ASan + UBSan over the whole library: each
#         fuzz target for PSNRHVS_FUZZ_SECONDS (20) seconds
# Device backends (CUDA, HIP) are left out: their host code is the same
# whatever the sanitizer, and their kernels do not run here.
# usage: tests/run_sanitizers.sh <dir> [asan] [tsan] [fuzz]   (all when none)
# SPDX-License-Identifier: BSD-2-Clause
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# absolute: the tests run programs in folders of their own, and PoCL's cache
# path must not resolve against those
mkdir -p "$1"
dir=$(cd "$1" && pwd)
shift
runs=${*:-asan tsan fuzz}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
common="-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPSNRHVS_CUDA=OFF -DPSNRHVS_HIP=OFF -DPSNRHVS_SYCL=OFF"

configure_build() { # <tree> <cmake args...>
    tree=$1
    shift
    # shellcheck disable=SC2086
    cmake -S "$root" -B "$dir/$tree" $common "$@" >"$dir/$tree.configure.log" 2>&1 ||
        { cat "$dir/$tree.configure.log"; exit 1; }
    cmake --build "$dir/$tree" -j "$jobs" >"$dir/$tree.build.log" 2>&1 ||
        { tail -40 "$dir/$tree.build.log"; exit 1; }
}

export POCL_CACHE_DIR="$dir/pocl-cache"
for run in $runs; do
    echo "== sanitizers: $run"
    case $run in
    asan)
        flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
        configure_build asan "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=$flags" \
            "-DCMAKE_SHARED_LINKER_FLAGS=$flags"
        # use_sigaltstack=0: PoCL's LLVM gives the thread that opens an OpenCL
        # context (the CLI's opener thread) an alternate signal stack of its
        # own, which ASan would try to unmap as its own when the thread ends.
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:use_sigaltstack=0 \
            LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0" \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            ctest --test-dir "$dir/asan" -j "$jobs" --output-on-failure \
            -E "^python_|^install_|^build_|^batch$|^report$|^ffmpeg_|^opencl_golden_"
        ;;
    tsan)
        flags="-fsanitize=thread -fno-omit-frame-pointer"
        configure_build tsan -DPSNRHVS_OPENCL=OFF "-DCMAKE_C_FLAGS=$flags" \
            "-DCMAKE_EXE_LINKER_FLAGS=$flags" "-DCMAKE_SHARED_LINKER_FLAGS=$flags"
        # Not cli_signals: TSan runs a signal's handler at the receiving
        # thread's next libc call, and about one run in twenty it never ran
        # it (SIGHUP, SIGPROF, SIGXCPU seen; the main thread waiting on a
        # condition, nothing left pending in the kernel; 150 signals in the
        # plain build, none lost). The plain and ASan builds run it. FFmpeg's
        # libraries left out as below: cli_keep decodes an image sequence and
        # a damaged MJPEG clip.
        TSAN_OPTIONS=suppressions=$root/tests/tsan-ffmpeg.supp:halt_on_error=1:second_deadlock_stack=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0 \
            ctest --test-dir "$dir/tsan" -j "$jobs" --output-on-failure \
            -R "^api_|^golden_isa|^golden_lib_auto_t3|^cpu_sum_modes|^sum_|^cli_" -E "^cli_signals$"
        # Compressed input (inputs opened and decoded at once) and target
        # (samples encoded, decoded and scored side by side), with FFmpeg's
        # own libraries and the encoders left out
        # (tests/tsan-ffmpeg.supp says why).
        TSAN_OPTIONS=suppressions=$root/tests/tsan-ffmpeg.supp:halt_on_error=1:second_deadlock_stack=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0 \
            ctest --test-dir "$dir/tsan" -j "$jobs" --output-on-failure -R "^ffmpeg_|^target_"
        ;;
    fuzz)
        if ! command -v clang >/dev/null; then
            echo "fuzz: no clang here, skipped"
            continue
        fi
        flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
        # No VapourSynth plugin: clang links no sanitizer runtime into a module.
        configure_build fuzz -DCMAKE_C_COMPILER=clang -DPSNRHVS_OPENCL=OFF -DPSNRHVS_FUZZ=ON \
            -DPSNRHVS_VAPOURSYNTH=OFF \
            "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" \
            "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined"
        # The executions and time in the log; the whole output when it fails.
        fuzz_rc=0
        ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            ctest --test-dir "$dir/fuzz" --output-on-failure -V -R "^fuzz_api$" \
            >"$dir/fuzz.ctest.log" 2>&1 || fuzz_rc=$?
        grep -E "Done [0-9]+ runs|stat::number_of_executed_units|Test +#|tests passed|tests failed|ERROR|SUMMARY" \
            "$dir/fuzz.ctest.log" || true
        if [ "$fuzz_rc" -ne 0 ]; then
            tail -60 "$dir/fuzz.ctest.log"
            exit "$fuzz_rc"
        fi
        ;;
    *)
        echo "unknown run $run (asan, tsan or fuzz)" >&2
        exit 2
        ;;
    esac
done
