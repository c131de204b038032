// SPDX-License-Identifier: MIT
// exactattn internal: the scenario loader. One Loader reads one file's tree section by section
// (load.cpp: the driver and the core sections; load_figures.cpp, load_exercises.cpp,
// load_layers.cpp, load_decoder.cpp: the others; load_common.cpp: what every section reads),
// each error placed at its file and JSON pointer.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "exactattn/error.hpp"
#include "exactattn/scenario.hpp"
#include "core/names.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail {

// Memory sources read ahead of the tree (parse_scenario): by source name; the tree holds null
// where each of these memories stood.
using Preloaded = std::map<std::string, Memory, std::less<>>;

// A table's number ("14.1", "A-3"): it becomes a LaTeX counter value, a \label and an HTML id,
// so only letters, digits, '.' and '-', starting with a letter or digit, at most 20 characters.
std::string table_number(const Reader& r, const Json& j, const std::string& pointer);

class Loader {
  public:
    Loader(const Json& root, std::string file, Preloaded* preloaded = nullptr)
        : root_(root), r_(std::move(file)), preloaded_(preloaded) {}

    Scenario load();

  private:
    void vocabulary(Scenario& s);

    void encoder(Scenario& s);

    void sources(Scenario& s);

    std::vector<NamedVector> named_vectors(const char* key);

    // A reference to a named vector, or an inline vector.
    NamedVector vector_ref(const Json& v, const std::string& ptr, const std::vector<NamedVector>& named,
                           const char* what, const char* plural);

    std::string source_ref(const Scenario& s, const Json& obj, const std::string& ptr);

    std::vector<std::size_t> positions(const Json& v, const std::string& ptr, std::size_t n);

    void check_widths(const Scenario& s, const std::string& source, const NamedVector& q,
                      const std::optional<NamedVector>& r, const std::string& ptr);

    void reads(Scenario& s);

    void interventions(Scenario& s);

    CostSpec cost_case(const Scenario& s, const std::string& name, const Json& v, const std::string& ptr);

    void costs(Scenario& s);

    // A name declared in a section, or a ReferenceError listing the section's names.
    template <class Spec>
    const Spec& declared(const std::vector<Spec>& specs, const Json& v, const std::string& ptr, const char* what) {
        const std::string name = r_.string(v, ptr);
        for (const auto& x : specs) {
            if (x.name == name) return x;
        }
        const auto name_of = [](const Spec& x) -> const std::string& { return x.name; };
        throw reference_error(
            fmt::format("unknown {} \"{}\" (declared: {})", what, name, detail::name_list(specs, name_of, "none")),
            r_.at(ptr));
    }

    // More positions than a figure can draw legibly: refused at load, before anything runs.
    void figure_size(std::size_t n, const char* what, const std::string& ptr);

    // A heatmap of a rollout: one regime's decoder steps (rows) × the source's positions.
    void rollout_heatmap(const Scenario& s, const Json& v, const std::string& ptr, FigureSpec& f);

    // A figure's parts: the keys its kind takes (another kind's refused), each kind's own
    // references and sizes, and its number (unique), caption and PDF path.
    void figure_kind_keys(const Json& v, const std::string& ptr, FigureKind kind);
    void comparison_figure(const Scenario& s, const Json& v, const std::string& ptr, FigureSpec& f);
    void dependency_figure(const Scenario& s, const Json& v, const std::string& ptr, FigureSpec& f);
    void heatmap_figure(const Scenario& s, const Json& v, const std::string& ptr, FigureSpec& f);
    void figure_labels(const Json& v, const std::string& ptr, FigureSpec& f, std::set<std::string>& numbers);
    void figures(Scenario& s);

    void learner_answers(Scenario& s);

    // A proposal for a target that holds tokens (docs/check.md#token-answers): a string, or a
    // list of strings, each one token exactly as written.
    void token_answer(LearnerAnswer& la, const Json& j, const std::string& ptr);

    // One entry of a proposal as written: a string, or a JSON number read from its text.
    void answer_entry(LearnerAnswer& la, const Json& j, const std::string& ptr);

    // {"decimal_places": 6}, {"significant_figures": 4}, {"absolute": "1/1000"}, {"relative": 0.01}.
    Tolerance tolerance(const Json& j, const std::string& ptr);

    std::vector<std::string> accepted(const Json& j, const std::string& ptr);

    // The strings of the array ex[key] (none when absent), each checked by check(ref, pointer).
    template <class F>
    std::vector<std::string> ref_list(const Json& ex, const char* key, const std::string& ptr, F&& check) {
        std::vector<std::string> out;
        if (!ex.contains(key)) return out;
        const std::string p = ptr + "/" + key;
        const auto& a = r_.array(ex[key], p);
        for (std::size_t i = 0; i < a.size(); ++i) {
            const std::string pi = pointer_join(p, i);
            out.push_back(r_.string(a[i], pi));
            check(out.back(), pi);
        }
        return out;
    }

    std::vector<std::string> names(const Json& ex, const char* key, const std::string& ptr,
                                   const std::set<std::string>& known, const char* what);

    // k of "<prefix><k>" with k written in 1 to 6 decimal digits, without leading zeros (as the
    // report's pointers, RFC 6901 array indices, write it); nothing otherwise.
    static std::optional<std::size_t> numbered(const std::string& rest, const std::string& prefix);

    // An exercise's intervention reference: "<name>" (the whole table) or "<name>/rows/<k>",
    // row k exactly as the report's /interventions/<name>/rows/<k> (0 without intervention,
    // k the k-th listed position): one numbering for pointers and references.
    std::vector<std::string> intervention_refs(const Scenario& s, const Json& ex, const std::string& ptr);

    // An exercise's rollout reference: "<name>" (both regimes) or "<name>/<regime>/steps/<k>",
    // step k exactly as the report's /rollouts/<name>/<regime>/steps/<k> (k from 1 to the
    // declared steps; a generation that ends early has fewer, checked when the report is run).
    std::vector<std::string> rollout_refs(const Scenario& s, const Json& ex, const std::string& ptr);

    // An exercise's layer reference: "<name>" or the rest of a report pointer into the layer,
    // /layers/<name>/heads/<h>[/<quantity>[/<i>[/<j>]]] or /layers/<name>/<input|masked|concat|
    // output>[/<i>[/<j>]], with every index in range (0-based, as in the report's pointers).
    std::vector<std::string> layer_refs(const Scenario& s, const Json& ex, const std::string& ptr);

    void exercises(Scenario& s);

    bool flag(const Json& v, const std::string& ptr);

    std::string pointer(const Json& v, const std::string& ptr);

    // An exercise's `variation` (docs/variants.md). The pointers are resolved when variants are
    // drawn (they address the written scenario and the run report).
    Variation variation(const Json& v, const std::string& ptr);
    std::uint64_t seed(const Json& j, const std::string& ptr);

    void crosscheck(Scenario& s);

    void expect(Scenario& s);

    const Json& root_;
    Reader r_;
    Preloaded* preloaded_;
};

/// parse_scenario with every section read from one document tree (parse_json_exact): the
/// reference that parse_scenario's streamed memory sources must agree with.
Scenario parse_scenario_reference(std::string_view json_text, const std::string& file);

}  // namespace exactattn::detail
