#!/usr/bin/env bash
# Installs Debian's headless Chromium, which the report tests open reports in (make test runs
# this first). Nothing to do when a chromium is already on PATH.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium
