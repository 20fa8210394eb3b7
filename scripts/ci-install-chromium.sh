#!/usr/bin/env bash
# Installs Debian's Chromium for the reference-page browser test (test/browser), driven by
# playwright-core at /usr/bin/chromium. Idempotent: does nothing when /usr/bin/chromium exists.
# Fails loudly when it cannot install it (no root and no sudo, no apt-get, or the install fails).
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "chromium: already installed ($("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM"))"
  exit 0
fi

fail() {
  echo "ci-install-chromium: $*" >&2
  exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "apt-get not found: install Debian's 'chromium' package by hand ($CHROMIUM is required)"

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  fail "not root and sudo is not available: cannot install chromium ($CHROMIUM is required)"
fi

echo "chromium: installing Debian's package"
$SUDO apt-get update || fail "apt-get update failed"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium || fail "apt-get install chromium failed"

[ -x "$CHROMIUM" ] || fail "chromium was installed but $CHROMIUM does not exist"
echo "chromium: installed ($("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM"))"
