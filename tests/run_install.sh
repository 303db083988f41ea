#!/bin/sh
# Installs the build into a temporary prefix, then builds and runs a consumer (tests/consumer)
# through find_package(clperm) and through pkg-config; the .pc file must point into the prefix.
#   run_install.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -eu
build=$1
src=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
fail() {
    echo "run_install: $*" >&2
    exit 1
}
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || fail "cmake --install failed ($work/install.log)"
pc=$(find "$prefix" -name clperm.pc | head -n 1)
[ -n "$pc" ] || fail "no clperm.pc installed"
export PKG_CONFIG_PATH="$(dirname "$pc")"
libdir=$(pkg-config --variable=libdir clperm)
incdir=$(pkg-config --variable=includedir clperm)
[ -f "$incdir/clperm.h" ] || fail "pkg-config's includedir $incdir has no clperm.h"
[ -e "$libdir/libclperm.so" ] || fail "pkg-config's libdir $libdir has no libclperm.so"
pkg-config --libs clperm | grep -q -- -lOpenCL || fail "pkg-config --libs clperm leaves out -lOpenCL"
[ -f "$prefix/share/doc/clperm/LICENSE" ] || fail "LICENSE not installed"
# Through pkg-config.
cc -std=c99 -o "$work/consumer_pc" "$src/tests/consumer/main.c" $(pkg-config --cflags --libs clperm) ||
    fail "the consumer does not build through pkg-config"
LD_LIBRARY_PATH="$libdir" "$work/consumer_pc" || fail "the consumer built through pkg-config failed"
# Through find_package.
cmake -S "$src/tests/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" >"$work/consumer.log" 2>&1 ||
    fail "find_package(clperm) failed ($work/consumer.log)"
cmake --build "$work/consumer" >>"$work/consumer.log" 2>&1 || fail "the consumer does not build ($work/consumer.log)"
LD_LIBRARY_PATH="$libdir" "$work/consumer/consumer" || fail "the consumer built through find_package failed"
