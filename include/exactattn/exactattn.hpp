// SPDX-License-Identifier: MIT
// exactattn: the front door. One include for the exact value engine and the attention model:
// values in Q(2^(1/m))[a] with a = ln 2, parsing and printing, memories, the read (Chapter 14)
// and its interventions, the encoder and cost counts, the attention layer (Chapter 15) and the
// decoder rollout. The tools above them — scenario files, reports, documents, check, verify,
// crosscheck, variants — have headers of their own (docs/cpp.md lists them).
#pragma once

#include "exactattn/version.hpp"

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/field.hpp"
#include "exactattn/value.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "exactattn/deferred.hpp"
#include "exactattn/memory.hpp"
#include "exactattn/linalg.hpp"
#include "exactattn/read.hpp"
#include "exactattn/encoder.hpp"
#include "exactattn/attention.hpp"
#include "exactattn/decoder.hpp"
