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
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
