// SPDX-License-Identifier: MIT
// exactattn benchmark (issue 17): the read command end to end, as a user runs it.
//
//  W9: `exactattn read --memory @FILE --query Q --format json` on W1's data (n = 10^6, d = 16,
//      written once as a memory file), one process per run, against a double reference in
//      its own process: the same file parsed into doubles with the same JSON reader
//      (simdjson's On Demand), a max-subtracted softmax, the weights and the context written
//      with %.17g. Also `--fields weights,context,denominator`, and the split of the exact
//      command into parse / compute / print, measured in this process (MB/s in and out).
//  Spellings: the same memory with every entry spelled another way ("1*a", "2a/2", ...):
//      it must read compact (the fast path) and give the same weights, byte for byte.
//  W9g: a general memory (not integer multiples of one unit) of n rows, d = 16, through the
//      same command: bench_general below.
//  W10: a scenario with a 10^5-row memory source through `run --format json` and `verify`,
//      against `read --format json` on the same memory, each a process.
// `bash scripts/bench.sh` runs it last; ctest runs it tiny (EXACTATTN_BENCH_TINY=1, label bench).
// Options: --n=N (10^6), --repetitions=R (3); --double-child=FILE,QUERY,OUT is internal.
#include <fmt/format.h>

#include <exception>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "exactattn/print.hpp"
#include "exactattn/read.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "exactattn/verify.hpp"
#include "process.hpp"
#include "workloads.hpp"

namespace eb = exactattn::bench;
using exactattn::Memory;
using exactattn::ReadRequest;
using exactattn::ReadTrace;

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// An integer multiple of a, spelled canonically (as the program prints it: 0, a, -a, 3a) or,
// with `variant` > 0, in one of several other spellings of the same value.
std::string spelled(std::int64_t k, int variant) {
    if (k == 0) return variant % 2 == 0 ? "0" : "0*a";
    switch (variant % 4) {
        case 1:
            return fmt::format("{}*a", k);
        case 2:
            return fmt::format("{}a/2", 2 * k);
        case 3:
            return fmt::format("a*{}", k);
        default:
            return k == 1 ? "a" : k == -1 ? "-a" : fmt::format("{}a", k);
    }
}

// The memory file of the first n rows of `data`, entry (j, i) spelled entry(k, j, i).
template <class Entry>
void write_entries(const std::string& path, const eb::IntegerData& data, std::size_t n, std::size_t d, Entry&& entry) {
    std::string text = "[";
    text.reserve(n * d * 7);
    for (std::size_t j = 0; j < n; ++j) {
        text += j == 0 ? "[" : ",[";
        for (std::size_t i = 0; i < d; ++i) {
            if (i > 0) text += ',';
            text += '"';
            text += entry(data.k[j * d + i], j, i);
            text += '"';
        }
        text += ']';
    }
    text += "]\n";
    std::ofstream(path, std::ios::binary) << text;
}

void write_memory(const std::string& path, const eb::IntegerData& data, std::size_t n, std::size_t d, bool respell) {
    write_entries(path, data, n, d, [&](std::int64_t k, std::size_t j, std::size_t i) {
        return spelled(k, respell ? static_cast<int>(j + i) % 4 : 0);
    });
}

std::string vector_text(const std::vector<std::int64_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += fmt::format("{}{}", i > 0 ? "," : "", v[i]);
    return s + "]";
}

// The double reference as its own process: parse FILE into doubles (entries k·a, a = ln 2),
// read, write weights and context with %.17g to OUT.
int double_child(const std::string& spec) {
    const auto c1 = spec.find(',');
    const auto c2 = spec.rfind(',');
    const std::string file = spec.substr(0, c1);
    const std::string query_text = spec.substr(c1 + 1, c2 - c1 - 1);
    const std::string out_path = spec.substr(c2 + 1);
    namespace sj = simdjson;
    sj::padded_string text;
    if (sj::padded_string::load(file).get(text) != sj::SUCCESS) return 2;
    const double a = std::log(2.0);
    eb::DoubleData data;
    sj::ondemand::parser parser;
    sj::ondemand::document doc;
    if (parser.iterate(text).get(doc) != sj::SUCCESS) return 2;
    std::size_t n = 0;
    for (auto row : doc.get_array()) {
        ++n;
        for (auto cell : row.get_array()) {
            std::string_view s;
            if (cell.get_string().get(s) != sj::SUCCESS || s.empty()) return 2;
            // "3a", "-a", "0": the number before the a (1 or -1 when there is none), times a.
            const bool times_a = s.back() == 'a';
            if (times_a) s.remove_suffix(1);
            double x = 1;
            if (s == "-")
                x = -1;
            else if (!s.empty() && std::from_chars(s.data(), s.data() + s.size(), x).ec != std::errc())
                return 2;
            data.h.push_back(times_a ? x * a : x);
        }
    }
    sj::padded_string qtext(query_text);
    sj::ondemand::document qdoc;
    if (parser.iterate(qtext).get(qdoc) != sj::SUCCESS) return 2;
    for (auto x : qdoc.get_array()) data.query.push_back(static_cast<double>(std::int64_t(x)));
    const std::size_t d = data.query.size();
    const eb::DoubleResult r = eb::read_double(data, n, d);
    std::FILE* f = std::fopen(out_path.c_str(), "wb");
    if (f == nullptr) return 2;
    std::string buf;
    auto flush = [&] {
        std::fwrite(buf.data(), 1, buf.size(), f);
        buf.clear();
    };
    buf += "{\"weights\":[";
    for (std::size_t j = 0; j < n; ++j) {
        fmt::format_to(std::back_inserter(buf), "{}{:.17g}", j > 0 ? "," : "", r.weights[j]);
        if (buf.size() > (1U << 20)) flush();
    }
    buf += "],\"context\":[";
    for (std::size_t i = 0; i < d; ++i)
        fmt::format_to(std::back_inserter(buf), "{}{:.17g}", i > 0 ? "," : "", r.context[i]);
    buf += "]}\n";
    flush();
    return std::fclose(f) == 0 ? 0 : 2;
}

struct Runs {
    double min_s = 0;
    double median_s = 0;
    double peak_mib = 0;
    bool ok = true;
};

Runs time_runs(const std::vector<std::string>& args, int reps, const std::string& out_file) {
    std::vector<double> s;
    Runs r;
    for (int i = 0; i < reps; ++i) {
        const auto p = eb::run_process(args, nullptr, out_file);
        r.ok = r.ok && p.code == 0;
        s.push_back(p.ms / 1e3);
        r.peak_mib = std::max(r.peak_mib, p.maxrss_mib);
    }
    std::sort(s.begin(), s.end());
    r.min_s = s.front();
    r.median_s = s[s.size() / 2];
    return r;
}

std::uintmax_t size_of(const std::string& path) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(path, ec);
    return ec ? 0 : n;
}

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

const char* verdict(bool pass) { return pass ? "met" : "MISSED"; }

// ---------------------------------------------------------------------------------------------
// W9g: a general memory. W1's integers, but the last four coordinates are values of other
// kinds, as a state that carries key coordinates k·a (the ones the query reads) and payload
// coordinates does: k·a/6, a constant k/2, a radical k·2^(1/2)/2 and k·a²/3. No one unit
// divides every entry (a and 1 are different powers of a, 2^(1/2) is in no power of a), so the
// memory is not compact; each column is a multiple of a unit of its own. The query is W1's
// on the first twelve coordinates and 0 on the payload, so every score is an integer multiple
// of a and every exponential exact (a nonzero query entry on the constant column would make a
// score 1/2 + …, whose exponential is refused). The read must: load compact per column (not in
// one unit), take the fast path, and equal attend_general's read in every field on the first
// 2000 rows.

std::string general_entry(std::int64_t k, std::size_t column) {
    if (k == 0) return "0";
    switch (column) {
        case 12:
            return fmt::format("{}a/6", k);
        case 13:
            return fmt::format("{}/2", k);
        case 14:
            return fmt::format("{}*2^(1/2)/2", k);
        case 15:
            return fmt::format("{}a^2/3", k);
        default:
            return k == 1 ? "a" : k == -1 ? "-a" : fmt::format("{}a", k);
    }
}

void write_general_memory(const std::string& path, const eb::IntegerData& data, std::size_t n, std::size_t d) {
    write_entries(path, data, n, d, [](std::int64_t k, std::size_t, std::size_t i) { return general_entry(k, i); });
}

struct GeneralFiles {
    std::string memory;  // n rows
    std::string small;   // the first 2000 rows
    std::string query;
    std::vector<std::int64_t> query_ints;
};

GeneralFiles write_general(const std::filesystem::path& dir, std::size_t n) {
    const eb::Workload w = eb::w1();
    eb::IntegerData data = eb::integer_data(w, n);
    for (std::size_t i = 12; i < w.d; ++i) data.query[i] = 0;
    GeneralFiles f{(dir / "w9g.json").string(), (dir / "w9g-small.json").string(), vector_text(data.query), data.query};
    write_general_memory(f.memory, data, n, w.d);
    write_general_memory(f.small, data, std::min<std::size_t>(n, 2000), w.d);
    return f;
}

std::string general_output(const std::filesystem::path& dir) { return (dir / "w9g-out.json").string(); }

// W9g's processes (run while this process is small, as the others).
Runs run_general(const std::string& bin, const GeneralFiles& f, const std::filesystem::path& dir, int reps) {
    return time_runs({bin, "read", "--memory", "@" + f.memory, "--query", f.query, "--format", "json"}, reps,
                     general_output(dir));
}

// W9g in this process; prints its section and returns its summary line (`ok` false on failure).
std::string bench_general(const Runs& runs, const GeneralFiles& f, const std::filesystem::path& dir, std::size_t n,
                          int reps, bool& ok) {
    const std::string out = general_output(dir);
    const double in_mb = static_cast<double>(size_of(f.memory)) / 1e6;
    fmt::print(
        "\n== W9g: read --format json end to end on a general memory, n = {}, d = 16 ({:.1f} MB; columns "
        "k·a, k·a/6, k/2, k·2^(1/2)/2, k·a²/3); min of {} processes\n",
        n, in_mb, reps);
    fmt::print("exact read --format json: {:.2f} s (median {:.2f} s), peak {:.0f} MiB, {:.1f} MB written{}\n",
               runs.min_s, runs.median_s, runs.peak_mib, static_cast<double>(size_of(out)) / 1e6,
               runs.ok ? "" : "  (FAILED: nonzero exit)");
    ok = ok && runs.ok;
    ReadRequest req;
    for (auto q : f.query_ints) req.query.emplace_back(static_cast<long>(q));
    {
        const auto t0 = Clock::now();
        const Memory memory = exactattn::load_memory_argument("@" + f.memory);
        const double parse_s = seconds_since(t0);
        const auto t1 = Clock::now();
        const ReadTrace trace = exactattn::attend(memory, req);
        const double compute_s = seconds_since(t1);
        const std::string split_out = (dir / "w9g-split.json").string();
        const auto t2 = Clock::now();
        {
            std::ofstream o(split_out, std::ios::binary);
            exactattn::write_read_json(memory, trace, o);
        }
        const double print_s = seconds_since(t2);
        fmt::print(
            "exact, in this process: parse {:.3f} s ({:.0f} MB/s in; one unit: {}, a unit a column: {}), "
            "compute {:.3f} s (fast path: {}), print {:.3f} s ({:.0f} MB/s out)\n",
            parse_s, in_mb / parse_s, memory.is_compact() ? "YES" : "no", memory.is_columnwise() ? "yes" : "NO",
            compute_s, trace.fast_path ? "yes" : "NO", print_s,
            static_cast<double>(size_of(split_out)) / 1e6 / print_s);
        ok = ok && !memory.is_compact() && memory.is_columnwise() && trace.fast_path;
        if (slurp(out) != slurp(split_out)) {
            fmt::print("FAILED: the command's output differs from write_read_json's\n");
            ok = false;
        }
    }
    // The fast path against the general value arithmetic, on the first 2000 rows.
    const Memory small = exactattn::load_memory_argument("@" + f.small);
    const auto t0 = Clock::now();
    const ReadTrace general = exactattn::attend_general(small, req);
    const double general_s = seconds_since(t0);
    const std::string diff = eb::trace_difference(exactattn::attend(small, req), general);
    fmt::print(
        "check: the first {} rows read by the fast path {} attend_general's read in every field "
        "(attend_general {:.2f} s)\n",
        small.rows(), diff.empty() ? "equal" : "DIFFER from (" + diff + ")", general_s);
    ok = ok && diff.empty();
    fmt::print("W9g ≤ 5 s: {:.2f} s, {}\n", runs.min_s, verdict(runs.min_s <= 5));
    return fmt::format(
        "W9 general: {} rows, {:.2f} s, peak {:.0f} MiB (a unit a column, fast path; general "
        "value arithmetic {:.2f} s for the first {} rows)",
        n, runs.min_s, runs.peak_mib, general_s, small.rows());
}

}  // namespace

namespace {
int bench_main(int argc, char** argv) {
    // EXACTATTN_BENCH_TINY=1 (the test suite's `bench` label, docs/testing.md): n = 2000, one
    // repetition, so that the benchmark runs in seconds and cannot rot.
    const char* tiny = std::getenv("EXACTATTN_BENCH_TINY");
    const bool is_tiny = tiny != nullptr && std::string(tiny) == "1";
    std::size_t n = is_tiny ? 2000 : 1'000'000;
    int reps = is_tiny ? 1 : 3;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("--double-child=", 0) == 0) return double_child(a.substr(15));
        if (a.rfind("--n=", 0) == 0)
            n = std::strtoull(a.c_str() + 4, nullptr, 10);
        else if (a.rfind("--repetitions=", 0) == 0)
            reps = std::max(1, std::atoi(a.c_str() + 14));
    }
    const std::string bin = EXACTATTN_BINARY;
    const std::string self = "/proc/self/exe";
    const std::filesystem::path dir = std::filesystem::path(EXACTATTN_BENCH_DIR) / "e2e";
    std::filesystem::create_directories(dir);
    // Inputs first, then every process while this one is small: a child's ru_maxrss counts
    // what its parent held when it forked.
    const std::string memory_file = (dir / "w1.json").string();
    const std::string spelled_file = (dir / "w1-spelled.json").string();
    const std::size_t n10 = std::min<std::size_t>(n, 100'000);
    const std::string memory10 = (dir / "w10-memory.json").string();
    const std::string scenario10 = (dir / "w10.json").string();
    std::string query;
    std::vector<std::int64_t> query_ints;
    {
        const eb::Workload w = eb::w1();
        const eb::IntegerData data = eb::integer_data(w, n);
        query_ints = data.query;
        query = vector_text(data.query);
        write_memory(memory_file, data, n, w.d, false);
        write_memory(spelled_file, data, n, w.d, true);
        write_memory(memory10, data, n10, w.d, false);
        const Memory m10 = exactattn::load_memory_argument("@" + memory10);
        ReadRequest r10;
        for (auto q : data.query) r10.query.emplace_back(static_cast<long>(q));
        const ReadTrace t10 = exactattn::attend(m10, r10);
        std::string rows = slurp(memory10);
        while (!rows.empty() && rows.back() == '\n') rows.pop_back();
        std::ofstream(scenario10, std::ios::binary)
            << fmt::format(R"({{"title": "W10", "sources": {{"w": {{"memory": {}}}}}, "queries": {{"q": {}}}, )"
                           R"("reads": {{"r": {{"source": "w", "query": "q"}}}}, )"
                           R"("expect": {{"/reads/r/denominator": "{}"}}}})"
                           "\n",
                           rows, query, exactattn::to_ascii(t10.denominator));
    }
    const GeneralFiles general_files = write_general(dir, n);
    const double in_mb = static_cast<double>(size_of(memory_file)) / 1e6;
    bool ok = true;

    // W9 as processes.
    const std::string exact_out = (dir / "exact.json").string();
    const std::string fields_out = (dir / "fields.json").string();
    const std::string double_out = (dir / "double.json").string();
    const std::string spelled_out = (dir / "spelled.json").string();
    const Runs exact =
        time_runs({bin, "read", "--memory", "@" + memory_file, "--query", query, "--format", "json"}, reps, exact_out);
    const Runs fields = time_runs({bin, "read", "--memory", "@" + memory_file, "--query", query, "--format", "json",
                                   "--fields", "weights,context,denominator"},
                                  reps, fields_out);
    const Runs dbl = time_runs({self, "--double-child=" + memory_file + "," + query + "," + double_out}, reps, "");
    const Runs sp = time_runs({bin, "read", "--memory", "@" + spelled_file, "--query", query, "--format", "json",
                               "--fields", "weights,context,denominator"},
                              1, spelled_out);
    // W10 as processes.
    const Runs read10 =
        time_runs({bin, "read", "--memory", "@" + memory10, "--query", query, "--format", "json"}, reps, "");
    const Runs run10 = time_runs({bin, "run", scenario10, "--format", "json"}, reps, "");
    const Runs verify10 = time_runs({bin, "verify", scenario10}, reps, "");
    const Runs general_runs = run_general(bin, general_files, dir, reps);

    fmt::print(
        "== W9: read --format json end to end on W1's data, n = {}, d = 16 ({:.1f} MB memory file); "
        "min of {} processes\n",
        n, in_mb, reps);
    const double exact_mb = static_cast<double>(size_of(exact_out)) / 1e6;
    fmt::print("exact read --format json: {:.2f} s (median {:.2f} s), peak {:.0f} MiB, {:.1f} MB written{}\n",
               exact.min_s, exact.median_s, exact.peak_mib, exact_mb, exact.ok ? "" : "  (FAILED: nonzero exit)");
    fmt::print(
        "exact --fields weights,context,denominator: {:.2f} s (median {:.2f} s), peak {:.0f} MiB, {:.1f} MB "
        "written{}\n",
        fields.min_s, fields.median_s, fields.peak_mib, static_cast<double>(size_of(fields_out)) / 1e6,
        fields.ok ? "" : "  (FAILED: nonzero exit)");
    fmt::print(
        "double reference (simdjson into doubles, softmax, %.17g): {:.2f} s (median {:.2f} s), peak {:.0f} "
        "MiB, {:.1f} MB written{}\n",
        dbl.min_s, dbl.median_s, dbl.peak_mib, static_cast<double>(size_of(double_out)) / 1e6,
        dbl.ok ? "" : "  (FAILED: nonzero exit)");
    ok = ok && exact.ok && fields.ok && dbl.ok;

    // The split of the exact command, in this process: parse, compute, print (to a file).
    ReadRequest req;
    for (auto q : query_ints) req.query.emplace_back(static_cast<long>(q));
    const std::string split_out = (dir / "split.json").string();
    double parse_s = 0;
    double print_s = 0;
    {
        const auto t0 = Clock::now();
        const Memory memory = exactattn::load_memory_argument("@" + memory_file);
        parse_s = seconds_since(t0);
        const auto t1 = Clock::now();
        const ReadTrace trace = exactattn::attend(memory, req);
        const double compute_s = seconds_since(t1);
        const auto t2 = Clock::now();
        {
            std::ofstream f(split_out, std::ios::binary);
            exactattn::write_read_json(memory, trace, f);
        }
        print_s = seconds_since(t2);
        fmt::print(
            "exact, in this process: parse {:.3f} s ({:.0f} MB/s in, compact: {}), compute {:.3f} s (fast "
            "path: {}), print {:.3f} s ({:.0f} MB/s out)\n",
            parse_s, in_mb / parse_s, memory.is_compact() ? "yes" : "NO", compute_s, trace.fast_path ? "yes" : "NO",
            print_s, static_cast<double>(size_of(split_out)) / 1e6 / print_s);
        ok = ok && memory.is_compact() && trace.fast_path;
    }
    const double out_mb = static_cast<double>(size_of(split_out)) / 1e6;
    if (slurp(exact_out) != slurp(split_out)) {
        fmt::print("FAILED: the command's output differs from write_read_json's\n");
        ok = false;
    }

    // Spellings: the same memory spelled otherwise reads compact, with the same output.
    const bool spelled_compact = exactattn::load_memory_argument("@" + spelled_file).is_compact();
    const bool same = sp.ok && slurp(spelled_out) == slurp(fields_out);
    fmt::print(
        "respelled memory (1*a, 2a/2, a*1, 0*a, ...; {:.1f} MB): compact {}, the same weights, context and "
        "denominator byte for byte {}, {:.2f} s\n",
        static_cast<double>(size_of(spelled_file)) / 1e6, spelled_compact ? "yes" : "NO", same ? "yes" : "NO",
        sp.min_s);
    ok = ok && same && spelled_compact;

    fmt::print("\n== W10: a scenario with a {}-row memory source ({:.1f} MB)\n", n10,
               static_cast<double>(size_of(scenario10)) / 1e6);
    fmt::print(
        "read --format json {:.2f} s (peak {:.0f} MiB); run --format json {:.2f} s (peak {:.0f} MiB); verify "
        "{:.2f} s (peak {:.0f} MiB){}\n",
        read10.min_s, read10.peak_mib, run10.min_s, run10.peak_mib, verify10.min_s, verify10.peak_mib,
        read10.ok && run10.ok && verify10.ok ? "" : "  (FAILED: nonzero exit)");
    ok = ok && read10.ok && run10.ok && verify10.ok;
    {
        // The split of run and verify, in this process: load, compute, report build, print.
        const std::string split10 = (dir / "w10-split.json").string();
        const auto t0 = Clock::now();
        const exactattn::Scenario s = exactattn::load_scenario(scenario10);
        const double load_s = seconds_since(t0);
        const auto t1 = Clock::now();
        const exactattn::Report rep = exactattn::run_scenario(s, exactattn::ReportUse::Values);
        const double compute_s = seconds_since(t1);
        const auto t2 = Clock::now();
        const auto write = exactattn::json_report_writer(rep);
        const double build_s = seconds_since(t2);
        const auto t3 = Clock::now();
        {
            std::ofstream f(split10, std::ios::binary);
            write(f);
        }
        const double print10_s = seconds_since(t3);
        const auto t4 = Clock::now();
        const exactattn::VerifyResult v = exactattn::verify_report(rep);
        const double verify_s = seconds_since(t4);
        fmt::print(
            "in this process: load {:.3f} s (memory compact: {}), compute {:.3f} s, report build {:.3f} s, "
            "print {:.3f} s ({:.1f} MB), verify's comparisons {:.3f} s ({} passed)\n",
            load_s, s.source("w").states.is_compact() ? "yes" : "NO", compute_s, build_s, print10_s,
            static_cast<double>(size_of(split10)) / 1e6, verify_s, v.passed);
        const Runs same10 = time_runs({bin, "run", scenario10, "--format", "json"}, 1, (dir / "w10-run.json").string());
        if (!same10.ok || slurp((dir / "w10-run.json").string()) != slurp(split10) || v.passed != 1) {
            fmt::print("FAILED: run --format json differs from json_report_writer's text, or verify failed\n");
            ok = false;
        }
    }

    const std::string general_summary = bench_general(general_runs, general_files, dir, n, reps, ok);

    // Targets and summary lines.
    const double ratio = exact.min_s / dbl.min_s;
    const double in_rate = in_mb / parse_s;
    const double out_rate = out_mb / print_s;
    const double w10 = std::max(run10.min_s, verify10.min_s) / read10.min_s;
    fmt::print("\n== targets (issue 17)\n");
    fmt::print("W9 ≤ 1.5 s: {:.2f} s, {}\n", exact.min_s, verdict(exact.min_s <= 1.5));
    fmt::print("W9 ≤ 400 MB peak: {:.0f} MiB ({:.0f} MB), {}\n", exact.peak_mib, exact.peak_mib * 1.048576,
               verdict(exact.peak_mib * 1.048576 <= 400));
    fmt::print("W9 exact e2e ≤ 2x double e2e: {:.2f}x, {}\n", ratio, verdict(ratio <= 2));
    fmt::print("W9 input ≥ 100 MB/s: {:.0f} MB/s, {}; output ≥ 100 MB/s: {:.0f} MB/s, {}\n", in_rate,
               verdict(in_rate >= 100), out_rate, verdict(out_rate >= 100));
    fmt::print("W10 run and verify ≤ 2x read: {:.2f}x, {}\n", w10, verdict(w10 <= 2));
    fmt::print("\n== summary\n");
    fmt::print(
        "W9: exact/double e2e = {:.2f}x, {:.2f} s, peak {:.0f} MiB, in {:.0f} MB/s, out {:.0f} MB/s "
        "(double {:.2f} s, peak {:.0f} MiB; --fields weights,context,denominator {:.2f} s, peak {:.0f} MiB)\n",
        ratio, exact.min_s, exact.peak_mib, in_rate, out_rate, dbl.min_s, dbl.peak_mib, fields.min_s, fields.peak_mib);
    fmt::print("{}\n", general_summary);
    fmt::print(
        "W10: run/read = {:.2f}x, verify/read = {:.2f}x (read {:.2f} s, run {:.2f} s, verify {:.2f} s at n = {})\n",
        run10.min_s / read10.min_s, verify10.min_s / read10.min_s, read10.min_s, run10.min_s, verify10.min_s, n10);
    return ok ? 0 : 1;
}

}  // namespace

// An error inside the benchmark (a refusal, a limit) is reported, never std::terminate.
int main(int argc, char** argv) {
    try {
        return bench_main(argc, argv);
    } catch (const std::exception& e) {
        fmt::print(stderr, "{}: {}\n", argv[0], e.what());
        return 1;
    }
}
