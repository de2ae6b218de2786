#!/bin/sh
# Build and run the libFuzzer target for the msgpack reader.
#   FUZZ_SECONDS=60 [FUZZ_OUT=dir] fuzz/run.sh   (needs clang + libFuzzer:
#   apt-get install -y clang libclang-rt-14-dev)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
csrc="$here/../csrc"
out=${FUZZ_OUT:-"${TMPDIR:-/tmp}/pybcl-fuzz"}
mkdir -p "$out" "$out/corpus"
${CLANG:-clang} -std=c11 -g -O1 -Wall -Wextra -Werror \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    "$here/fuzz_msgpack.c" -I"$csrc" "$csrc/serial/bcl_msgpack.c" "$csrc/runtime/bcl_error.c" \
    -o "$out/fuzz_msgpack"
# New inputs go to $out/corpus; the checked-in seeds are read only.
exec "$out/fuzz_msgpack" -max_total_time="${FUZZ_SECONDS:-60}" \
    -max_len=4096 -print_final_stats=1 -artifact_prefix="$out/" \
    "$out/corpus" "$here/corpus"
