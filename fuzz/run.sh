#!/bin/sh
# Build and run the libFuzzer targets: the msgpack reader (fuzz_msgpack.c)
# and the saved-container file reader (fuzz_savefile.c), each for
# FUZZ_SECONDS.
#   FUZZ_SECONDS=60 [FUZZ_TARGETS="msgpack savefile"] [FUZZ_OUT=dir] fuzz/run.sh
#   (needs clang + libFuzzer: apt-get install -y clang libclang-rt-14-dev)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
csrc="$here/../csrc"
out=${FUZZ_OUT:-"${TMPDIR:-/tmp}/pybcl-fuzz"}

# target name, then the core sources it needs
build() {
    name=$1
    shift
    ${CLANG:-clang} -std=gnu11 -g -O1 -Wall -Wextra -Werror \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        "$here/fuzz_$name.c" -I"$csrc" "$@" -o "$out/fuzz_$name"
}

# target name, its checked-in seeds (read only; new inputs go to $out), input bytes at most
run() {
    mkdir -p "$out/corpus_$1"
    "$out/fuzz_$1" -max_total_time="${FUZZ_SECONDS:-60}" -max_len="$3" \
        -print_final_stats=1 -artifact_prefix="$out/$1-" "$out/corpus_$1" "$here/$2"
}

mkdir -p "$out"
for target in ${FUZZ_TARGETS:-msgpack savefile}; do
    case $target in
    msgpack)
        build msgpack "$csrc/serial/bcl_msgpack.c" "$csrc/runtime/bcl_error.c"
        run msgpack corpus 4096 ;;
    savefile)
        # a pybcl file's data starts 4096 bytes in: room for a few parts after it
        # (checksums not enforced in this build: mutations get past them)
        build savefile -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION "$csrc/io/bcl_sv_read.c" "$csrc/io/bcl_sv_format.c" \
            "$csrc/serial/bcl_msgpack.c" "$csrc/serial/bcl_hash.c" "$csrc/runtime/bcl_error.c"
        run savefile corpus_savefile 16384 ;;
    *)
        echo "fuzz/run.sh: unknown target $target (msgpack, savefile)" >&2
        exit 2 ;;
    esac
done
