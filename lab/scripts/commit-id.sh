#!/bin/sh
# Prints the commit this checkout is at (12 hex digits), "-dirty" appended when tracked files
# differ from it; "unknown" when the directory is not the top of a git checkout (a tarball).
# The Makefile bakes it into lab/util/version.c.
top=$(git -C "${1:-.}" rev-parse --show-toplevel 2>/dev/null) || { echo unknown; exit 0; }
[ "$(cd "${1:-.}" && pwd -P)" = "$(cd "$top" && pwd -P)" ] || { echo unknown; exit 0; }
id=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null) || { echo unknown; exit 0; }
git -C "$top" diff --quiet HEAD -- 2>/dev/null || id=$id-dirty
echo "$id"
