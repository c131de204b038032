// SPDX-License-Identifier: MIT
// libFuzzer target: the kernel oracle's readers and its judgement (`exactattn oracle`, Python's
// exactattn.oracle). The input's text is up to four parts separated by lines of `--`: Q, K, V
// and a kernel's output, each the bytes of one tensor file; the first byte's bits choose the
// files' kind (.json, .csv or .npy), the float format, causal masking, what a fully masked row
// gives, the exponential's base, and whether the output is emulated (then the given output is
// judged too) or only the reference computed. The readers must refuse malformed bytes with an
// exactattn::Error (a trailing comma, a NUL, a header past the data, nesting past max_nesting),
// and the reference, the emulation and the judgement must finish or be refused within the
// watchdog of scripts/fuzz.sh under the small limits and one work budget (fuzz_common.hpp).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"
#include "fuzz_common.hpp"

using namespace exactattn;
using namespace exactattn::oracle;

namespace {

// The oracle reads tensors from files, by extension: each part goes through the same reader as
// the command line's --q/--k/--v, from a file in memory-backed /dev/shm.
Tensor read_part(std::string_view bytes, const char* ext, std::optional<FloatFormat> declared) {
    static const std::string base = "/dev/shm/exactattn-oracle-fuzz-" + std::to_string(::getpid());
    const std::string path = base + ext;
    {
        std::ofstream f(path, std::ios::binary | std::ios::trunc);
        f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    return read_tensor(path, declared);
}

std::vector<std::string_view> parts_of(std::string_view text) {
    std::vector<std::string_view> parts;
    constexpr std::string_view sep = "\n--\n";
    std::size_t at = 0;
    while (parts.size() < 3) {
        const std::size_t end = text.find(sep, at);
        if (end == std::string_view::npos) break;
        parts.push_back(text.substr(at, end - at));
        at = end + sep.size();
    }
    parts.push_back(text.substr(at));
    return parts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::flagged_input(data, size);
    if (!input) return 0;
    const unsigned flags = input->flags;
    const std::vector<std::string_view> parts = parts_of(input->text);
    if (parts.size() < 3) return 0;
    static const char* const kExt[] = {".json", ".csv", ".npy", ".json"};
    static const FloatFormat kFormats[] = {FloatFormat::Float16, FloatFormat::BFloat16, FloatFormat::Float32,
                                           FloatFormat::Float64};
    const char* ext = kExt[flags & 3U];
    const FloatFormat format = kFormats[(flags >> 2U) & 3U];
    try {
        const WorkBudget job;  // one input, one job, as one command
        Problem p;
        p.q = read_part(parts[0], ext, format);
        p.k = read_part(parts[1], ext, format);
        p.v = read_part(parts[2], ext, format);
        p.causal = (flags & 16U) != 0;
        p.masked_rows = (flags & 32U) != 0 ? MaskedRows::Zeros : MaskedRows::NaN;
        p.base = (flags & 64U) != 0 ? ExpBase::Two : ExpBase::E;
        validate(p);
        const Reference ref = reference(p, format, /*weights=*/true);
        if ((flags & 128U) == 0) return 0;
        EmulationSpec es;
        es.format = format;
        es.output = format;
        const Emulation e = emulate(p, es, /*trace=*/true);
        AlgorithmSpec spec;
        spec.accumulate = format;
        spec.p_format = format;
        const Judgement j = judge_output(ref, e.out, spec, std::nullopt);
        (void)j.passed();
        if (parts.size() > 3) {
            const Tensor actual = read_part(parts[3], ext, format);
            Judgement given = judge_output(ref, actual, spec, std::nullopt);
            if (!given.passed()) given.diagnosis = diagnose(p, actual, spec, given);
        }
    } catch (const Error&) {
        // refused with a kind and a place: the contract
    }
    return 0;
}
