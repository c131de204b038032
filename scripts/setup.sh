#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages exactattn needs, only when some are missing (idempotent).
# libxml2-utils: xmllint, which validates the Moodle XML of `variants` in the tests.
set -euo pipefail
packages=(g++ cmake ninja-build pkg-config libgmp-dev libmpfr-dev libboost-dev
          nlohmann-json3-dev libsimdjson-dev libcli11-dev libfmt-dev libgtest-dev libbenchmark-dev
          python3 python3-sympy python3-dev python3-pip pybind11-dev python3-pybind11
          python3-pytest python3-numpy libxml2-utils clang-format)
if [ "${EXACTATTN_WITH_CLANG:-0}" = 1 ]; then
  packages+=(clang libclang-rt-14-dev)
fi
# The render checks (tests/render/, docs/testing.md): xelatex with booktabs, fontspec and xeCJK
# (which needs ctexhook from texlive-lang-chinese), a small CJK font (WenQuanYi Micro Hei, 1.6 MB)
# for the chapter's tokens, headless Chromium for the HTML pages, PIL for the screenshot check,
# poppler-utils (pdftotext) and librsvg2-bin (rsvg-convert) for figures. About 300 MB to download.
if [ "${EXACTATTN_WITH_RENDER:-0}" = 1 ]; then
  packages+=(texlive-xetex texlive-latex-recommended texlive-lang-chinese fonts-wqy-microhei
             chromium python3-pil librsvg2-bin poppler-utils)
  # The manuscript builds (docs/manuscript.md): pandoc itself, and the Latin Modern fonts and
  # psnfss (hyperref's link font) that pandoc's LaTeX template loads.
  packages+=(pandoc lmodern texlive-fonts-recommended)
  # docutils reads every reStructuredText output (tests/render/check_rst.py).
  packages+=(python3-docutils)
  # The oracle's tests judge PyTorch's attention on the CPU (python/tests/test_oracle.py).
  packages+=(python3-torch)
  # A LaTeX book of \include'd chapters built by latexmk (docs/manuscript.md, "Books").
  packages+=(latexmk)
  # MyST books (docs/manuscript.md, "MyST"): Node.js and npm, unless the machine has them, for
  # mystmd from the npm registry (below).
  if ! command -v npm >/dev/null 2>&1; then
    packages+=(nodejs npm)
  fi
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# mystmd (the MyST / Jupyter Book 2 command `myst`), the version pinned by
# tests/manuscript/myst/package-lock.json, into tests/manuscript/myst/node_modules (14 MB, one
# package without dependencies); only when that version is not there already. Nothing is
# downloaded while building or testing.
if [ "${EXACTATTN_WITH_RENDER:-0}" = 1 ]; then
  myst_dir="$(cd "$(dirname "$0")/.." && pwd)/tests/manuscript/myst"
  want=$(D="$myst_dir" node -p "require(process.env.D + '/package-lock.json').packages['node_modules/mystmd'].version")
  have=$(D="$myst_dir" node -p "require(process.env.D + '/node_modules/mystmd/package.json').version" 2>/dev/null || true)
  if [ "$want" != "$have" ]; then
    echo "setup: installing mystmd $want (npm ci)" >&2
    npm ci --prefix "$myst_dir" --no-audit --no-fund --loglevel=error >/dev/null
  fi
fi
