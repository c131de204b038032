// SPDX-License-Identifier: MIT
// exactattn internal: the scenario loader's driver and core sections (vocabulary, encoder, sources, reads,
// interventions, costs, crosscheck, expect), and the two routes a file is read by.
#include "scenario/load.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "core/names.hpp"
#include "core/print_detail.hpp"
#include "scenario/json.hpp"
#include "scenario/enum_names.hpp"
#include "scenario/load_decoder.hpp"
#include "scenario/load_layers.hpp"
#include "scenario/memory_file.hpp"

namespace exactattn::detail {

std::string table_number(const Reader& r, const Json& j, const std::string& pointer) {
    std::string n = r.string(j, pointer);
    const bool ok = !n.empty() && n.size() <= 20 && std::isalnum(static_cast<unsigned char>(n[0])) != 0 &&
                    std::all_of(n.begin(), n.end(), [](char c) {
                        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-';
                    });
    if (!ok) {
        throw shape_error(fmt::format("a table number is 1 to 20 letters, digits, '.' or '-' starting with a "
                                      "letter or digit, like \"14.1\"; got \"{}\"",
                                      escape_controls(n)),
                          r.at(pointer));
    }
    return n;
}

Scenario Loader::load() {
    Scenario s;
    s.file = r_.file();
    r_.object(root_, "");
    r_.only_keys(root_, "", {"title",           "assumptions", "vocabulary", "encoder",       "score",   "sources",
                             "queries",         "readouts",    "reads",      "interventions", "costs",   "exercises",
                             "learner_answers", "crosscheck",  "expect",     "notes",         "$schema", "sequences",
                             "matrices",        "layers",      "decoder",    "rollouts",      "figures"});
    if (root_.contains("title")) s.title = r_.string(root_["title"], "/title");
    if (root_.contains("assumptions")) {
        const auto& a = r_.array(root_["assumptions"], "/assumptions");
        for (std::size_t i = 0; i < a.size(); ++i) {
            s.assumptions.push_back(r_.string(a[i], pointer_join("/assumptions", i)));
        }
    }
    vocabulary(s);
    encoder(s);
    if (root_.contains("score")) {
        s.rule = r_.choice(root_["score"], "/score", "score rule", score_rule_names());
    }
    sources(s);
    s.queries = named_vectors("queries");
    s.readouts = named_vectors("readouts");
    reads(s);
    interventions(s);
    costs(s);
    parse_layer_sections(root_, r_, s);    // Chapter 15: scenario_layers.cpp
    parse_decoder_sections(root_, r_, s);  // decoder and rollouts: scenario_decoder.cpp
    figures(s);
    learner_answers(s);
    exercises(s);
    crosscheck(s);
    expect(s);
    return s;
}

void Loader::vocabulary(Scenario& s) {
    std::size_t width = 0;
    r_.each(root_, "vocabulary", [&](const std::string& token, const Json& v, const std::string& ptr) {
        if (token.empty()) throw shape_error("a token must not be empty", r_.at(ptr));
        if (token.find(' ') != std::string::npos) {
            throw shape_error(fmt::format("token \"{}\" contains a space; tokens are separated "
                                          "by spaces",
                                          token),
                              r_.at(ptr));
        }
        Vector e = r_.vector(v, ptr);
        if (s.vocabulary.empty()) width = e.size();
        if (e.size() != width) {
            throw shape_error(
                fmt::format("embedding of \"{}\" has width {}; the first has width {}", token, e.size(), width),
                r_.at(ptr));
        }
        s.vocabulary.emplace_back(token, std::move(e));
    });
}

void Loader::encoder(Scenario& s) {
    if (!root_.contains("encoder")) return;
    const Json& e = r_.object(root_["encoder"], "/encoder");
    r_.only_keys(e, "/encoder", {"activation", "recurrent", "input", "bias", "initial", "note"});
    Encoder enc;
    for (const char* k : {"recurrent", "input", "bias", "initial"}) {
        if (!e.contains(k)) {
            throw shape_error(fmt::format("the encoder needs \"{}\"", k), r_.at("/encoder"));
        }
    }
    if (e.contains("activation")) {
        enc.activation = r_.choice(e["activation"], "/encoder/activation", "activation", activation_names());
    }
    enc.recurrent = r_.matrix(e["recurrent"], "/encoder/recurrent");
    enc.input = r_.matrix(e["input"], "/encoder/input");
    enc.bias = r_.vector(e["bias"], "/encoder/bias");
    enc.initial = r_.vector(e["initial"], "/encoder/initial");
    r_.located("/encoder", [&] {
        enc.check();
        return 0;
    });
    if (!s.vocabulary.empty() && s.vocabulary.front().second.size() != enc.input.size()) {
        throw shape_error(fmt::format("embeddings have width {}; the input matrix W_x has {} rows",
                                      s.vocabulary.front().second.size(), enc.input.size()),
                          r_.at("/encoder/input"));
    }
    s.encoder = std::move(enc);
}

void Loader::sources(Scenario& s) {
    r_.each(root_, "sources", [&](const std::string& name, const Json& v, const std::string& ptr) {
        Source src;
        src.name = name;
        const Json* tokens = nullptr;
        if (v.is_array()) {
            tokens = &v;
        } else if (v.is_object()) {
            r_.only_keys(v, ptr, {"tokens", "memory", "labels", "note"});
            if (v.contains("tokens") == v.contains("memory")) {
                throw shape_error("a source gives exactly one of \"tokens\" or \"memory\"", r_.at(ptr));
            }
            if (v.contains("tokens")) tokens = &v["tokens"];
        } else {
            throw shape_error(fmt::format("expected a token list or an object with \"tokens\" or "
                                          "\"memory\", found {}",
                                          json_type(v)),
                              r_.at(ptr));
        }
        if (tokens != nullptr) {
            const std::string tptr = v.is_array() ? ptr : ptr + "/tokens";
            r_.array(*tokens, tptr);
            if (tokens->empty()) throw shape_error("the source has no tokens", r_.at(tptr));
            std::vector<std::string> list;
            for (std::size_t i = 0; i < tokens->size(); ++i) {
                const std::string p = pointer_join(tptr, i);
                list.push_back(r_.string((*tokens)[i], p));
                r_.located(p, [&] { return s.embedding(list.back()); });
            }
            src.states = r_.located(ptr, [&] { return Memory(s.encode_tokens(list)); });
            src.tokens = std::move(list);
        } else if (const auto it = preloaded_ != nullptr ? preloaded_->find(name) : Preloaded::iterator();
                   preloaded_ != nullptr && it != preloaded_->end() && v["memory"].is_null()) {
            src.states = std::move(it->second);
        } else {
            Matrix m = r_.matrix(v["memory"], ptr + "/memory");
            if (m.empty()) throw shape_error("the memory has no rows", r_.at(ptr + "/memory"));
            if (m.front().empty()) throw shape_error("memory rows are empty", r_.at(ptr + "/memory"));
            src.states = Memory(std::move(m));
        }
        if (v.is_object() && v.contains("labels")) {
            const auto& l = r_.array(v["labels"], ptr + "/labels");
            if (l.size() != src.states.rows()) {
                throw shape_error(fmt::format("{} labels for {} positions", l.size(), src.states.rows()),
                                  r_.at(ptr + "/labels"));
            }
            for (std::size_t i = 0; i < l.size(); ++i) {
                src.labels.push_back(r_.string(l[i], pointer_join(ptr + "/labels", i)));
            }
        }
        s.sources.push_back(std::move(src));
    });
}

std::vector<NamedVector> Loader::named_vectors(const char* key) {
    std::vector<NamedVector> out;
    r_.each(root_, key, [&](const std::string& name, const Json& v, const std::string& ptr) {
        out.push_back(NamedVector{name, r_.vector(v, ptr)});
    });
    return out;
}

NamedVector Loader::vector_ref(const Json& v, const std::string& ptr, const std::vector<NamedVector>& named,
                               const char* what, const char* plural) {
    if (v.is_string()) return find_named(named, v.get<std::string>(), what, plural, r_.at(ptr));
    return NamedVector{"", r_.vector(v, ptr)};
}

std::string Loader::source_ref(const Scenario& s, const Json& obj, const std::string& ptr) {
    if (!obj.contains("source")) throw shape_error("missing \"source\"", r_.at(ptr));
    const std::string name = r_.string(obj["source"], ptr + "/source");
    r_.located(ptr + "/source", [&] { return &s.source(name); });
    return name;
}

std::vector<std::size_t> Loader::positions(const Json& v, const std::string& ptr, std::size_t n) {
    std::vector<std::size_t> out;
    const auto& a = r_.array(v, ptr);
    std::set<std::size_t> seen;
    for (std::size_t i = 0; i < a.size(); ++i) {
        // Any whole number is a position; one outside 1..n names nothing (ReferenceError,
        // as for `read --remove`), while a fraction or a string is the wrong type.
        const std::string pi = pointer_join(ptr, i);
        const Value v = r_.value(a[i], pi);
        if (!v.is_rational() || v.rational().get_den() != 1) {
            throw shape_error(fmt::format("expected a position (a whole number from 1 to {}), "
                                          "found {}",
                                          n, brief_ascii(v)),
                              r_.at(pi));
        }
        const std::size_t p = checked_position(v.rational().get_num(), n, "source", r_.at(pi));
        if (!seen.insert(p).second) {
            throw shape_error(fmt::format("position {} is listed twice", p), r_.at(pi));
        }
        out.push_back(p);
    }
    return out;
}

void Loader::check_widths(const Scenario& s, const std::string& source, const NamedVector& q,
                          const std::optional<NamedVector>& r, const std::string& ptr) {
    const std::size_t d = s.source(source).states.width();
    if (q.values.size() != d) {
        throw shape_error(fmt::format("the query has width {}; the states of source \"{}\" have "
                                      "width {}",
                                      q.values.size(), source, d),
                          r_.at(ptr + "/query"));
    }
    if (r && r->values.size() != d) {
        throw shape_error(fmt::format("the readout has {} coefficients; the context has width {}", r->values.size(), d),
                          r_.at(ptr + "/readout"));
    }
}

void Loader::reads(Scenario& s) {
    const auto allowed = {"source", "query", "readout", "remove", "zero", "note", "number", "caption"};
    r_.each_object(root_, "reads", allowed, [&](const std::string& name, const Json& v, const std::string& ptr) {
        ReadSpec rs;
        rs.name = name;
        rs.source = source_ref(s, v, ptr);
        if (!v.contains("query")) throw shape_error("missing \"query\"", r_.at(ptr));
        rs.query = vector_ref(v["query"], ptr + "/query", s.queries, "query", "queries");
        if (v.contains("readout"))
            rs.readout = vector_ref(v["readout"], ptr + "/readout", s.readouts, "readout", "readouts");
        check_widths(s, rs.source, rs.query, rs.readout, ptr);
        const std::size_t n = s.source(rs.source).states.rows();
        if (v.contains("remove")) rs.remove = positions(v["remove"], ptr + "/remove", n);
        if (v.contains("zero")) rs.zero = positions(v["zero"], ptr + "/zero", n);
        for (std::size_t i = 0; i < rs.zero.size(); ++i) {
            if (std::find(rs.remove.begin(), rs.remove.end(), rs.zero[i]) != rs.remove.end()) {
                throw shape_error(fmt::format("position {} is listed in both \"remove\" and \"zero\"; a "
                                              "position is either removed or kept with score 0",
                                              rs.zero[i]),
                                  r_.at(pointer_join(ptr + "/zero", i)));
            }
        }
        if (v.contains("note")) rs.note = r_.string(v["note"], ptr + "/note");
        if (v.contains("number")) rs.number = table_number(r_, v["number"], ptr + "/number");
        if (v.contains("caption")) rs.caption = r_.string(v["caption"], ptr + "/caption");
        s.reads.push_back(std::move(rs));
    });
}

void Loader::interventions(Scenario& s) {
    const auto allowed = {"kind", "source", "query", "readout", "positions", "note", "number", "caption"};
    r_.each_object(root_, "interventions", allowed,
                   [&](const std::string& name, const Json& v, const std::string& ptr) {
                       InterventionSpec is;
                       is.name = name;
                       if (!v.contains("kind")) throw shape_error("missing \"kind\"", r_.at(ptr));
                       is.kind = r_.choice(v["kind"], ptr + "/kind", "intervention kind", intervention_kind_names());
                       is.source = source_ref(s, v, ptr);
                       if (!v.contains("query")) throw shape_error("missing \"query\"", r_.at(ptr));
                       is.query = vector_ref(v["query"], ptr + "/query", s.queries, "query", "queries");
                       if (v.contains("readout"))
                           is.readout = vector_ref(v["readout"], ptr + "/readout", s.readouts, "readout", "readouts");
                       check_widths(s, is.source, is.query, is.readout, ptr);
                       const Source& src = s.source(is.source);
                       if (is.kind == InterventionKind::DeleteToken && !src.tokens) {
                           throw shape_error(fmt::format("delete-token needs a source given as tokens; \"{}\" "
                                                         "gives its memory directly",
                                                         is.source),
                                             r_.at(ptr + "/source"));
                       }
                       const std::size_t n = src.states.rows();
                       if (v.contains("positions")) {
                           is.positions = positions(v["positions"], ptr + "/positions", n);
                       } else {
                           for (std::size_t j = 1; j <= n; ++j) is.positions.push_back(j);
                       }
                       if (v.contains("note")) is.note = r_.string(v["note"], ptr + "/note");
                       if (v.contains("number")) is.number = table_number(r_, v["number"], ptr + "/number");
                       if (v.contains("caption")) is.caption = r_.string(v["caption"], ptr + "/caption");
                       s.interventions.push_back(std::move(is));
                   });
}

CostSpec Loader::cost_case(const Scenario& s, const std::string& name, const Json& v, const std::string& ptr) {
    CostSpec c;
    c.name = name;
    const std::int64_t big = std::int64_t{1} << 40;
    if (v.contains("source")) {
        c.source = source_ref(s, v, ptr);
        c.input.positions = static_cast<std::int64_t>(s.source(c.source).states.rows());
        c.input.width = static_cast<std::int64_t>(s.source(c.source).states.width());
    }
    if (v.contains("positions")) c.input.positions = r_.integer(v["positions"], ptr + "/positions", 1, big);
    if (v.contains("width")) c.input.width = r_.integer(v["width"], ptr + "/width", 1, big);
    if (c.input.positions == 0 || c.input.width == 0) {
        throw shape_error("a cost case needs \"source\", or \"positions\" and \"width\"", r_.at(ptr));
    }
    c.input.target_steps =
        v.contains("target_steps") ? r_.integer(v["target_steps"], ptr + "/target_steps", 1, big) : 1;
    c.input.bytes_per_number =
        v.contains("bytes_per_number") ? r_.integer(v["bytes_per_number"], ptr + "/bytes_per_number", 1, 1 << 20) : 8;
    r_.located(ptr, [&] { return count_costs(c.input); });
    return c;
}

void Loader::costs(Scenario& s) {
    if (!root_.contains("costs")) return;
    const Json& c = r_.object(root_["costs"], "/costs");
    // The flat form {"bytes_per_number": 8, "target_steps": 4} is one case, "default",
    // over the first source. It is told from named cases by its values, which are not
    // objects: a case may be named "positions", and {"source": "red"} alone is flat.
    const auto allowed = {"source", "positions", "width", "target_steps", "bytes_per_number", "note"};
    bool flat = false;
    for (const auto& [key, v] : c.items()) flat = flat || !v.is_object();
    if (flat) {
        r_.only_keys(c, "/costs", allowed);
        Json flat = c;
        if (!flat.contains("source") && !flat.contains("positions") && !s.sources.empty()) {
            flat["source"] = s.sources.front().name;
        }
        s.costs.push_back(cost_case(s, "default", flat, "/costs"));
        return;
    }
    r_.each_object(root_, "costs", allowed, [&](const std::string& name, const Json& v, const std::string& ptr) {
        s.costs.push_back(cost_case(s, name, v, ptr));
    });
}

void Loader::crosscheck(Scenario& s) {
    if (!root_.contains("crosscheck")) return;
    const Json& c = r_.object(root_["crosscheck"], "/crosscheck");
    r_.only_keys(c, "/crosscheck", {"tolerance_ulps", "rationale"});
    if (c.contains("tolerance_ulps")) {
        const Value t = r_.value(c["tolerance_ulps"], "/crosscheck/tolerance_ulps");
        if (!t.is_rational() || t.sign() < 0) {
            throw shape_error("tolerance_ulps must be a nonnegative rational number",
                              r_.at("/crosscheck/tolerance_ulps"));
        }
        s.crosscheck.tolerance_ulps = to_double(t);
    }
    if (c.contains("rationale")) s.crosscheck.rationale = r_.string(c["rationale"], "/crosscheck/rationale");
}

void Loader::expect(Scenario& s) {
    r_.each(root_, "expect", [&](const std::string& pointer, const Json& v, const std::string& ptr) {
        if (pointer.empty() || pointer[0] != '/') {
            throw shape_error(fmt::format("expect key \"{}\" is not a JSON pointer (it must start "
                                          "with '/')",
                                          pointer),
                              r_.at(ptr));
        }
        s.expect.emplace_back(pointer, plain_json(v).dump());
    });
}

namespace {

// The scenario with its memory sources read by the memory file reader (simdjson, compact
// integers) and the rest as a tree, or nothing when the reference must answer: a memory or the
// rest that does not read cleanly. The tree of a 10^5-row memory and a general value per entry
// took 4 s where the memory reader takes 0.1 s. The answer is the reference's: the rest is the
// same tree with null where each memory stood, loaded by the same Loader in the same order;
// a memory the memory reader accepts is valid JSON nested two deep and holds the same values
// (Memory == is by value); and every error, whatever its place (a syntax error's line and
// column in the whole text, or the order of errors in different sections), comes from the
// reference reading the whole text again.
std::optional<Scenario> parse_scenario_streamed(std::string_view text, const std::string& file, std::size_t readable) {
    // Rows of a memory are 5 deep (object, sources, source, memory, row): under a smaller
    // nesting limit the reference refuses the file.
    if (limits().max_nesting < 5) return std::nullopt;
    // No "memory" key in the text (the built-in chapter, token-only scenarios): nothing to
    // stream, and the reference loader parses the file once instead of after a second pass. A
    // key spelled with escapes is found by the reference loader, which gives the same result.
    if (text.find("\"memory\"") == std::string_view::npos) return std::nullopt;
    const std::vector<MemorySpan> spans = find_memory_spans(text, readable);
    if (spans.empty()) return std::nullopt;
    Preloaded memories;
    std::string rest;
    std::size_t at = 0;
    for (const auto& span : spans) {
        if (span.offset < at) return std::nullopt;
        rest.append(text.substr(at, span.offset - at));
        rest += "null";
        at = span.offset + span.size;
        try {
            const std::string_view m = text.substr(span.offset, span.size);
            Memory memory = load_memory_json(m, file, readable > span.offset ? readable - span.offset : 0);
            if (!memories.emplace(span.source, std::move(memory)).second) return std::nullopt;
        } catch (const Error&) {
            return std::nullopt;
        }
    }
    rest.append(text.substr(at));
    Json root;
    try {
        root = parse_json_exact(rest, file);
    } catch (const Error&) {
        return std::nullopt;
    }
    return Loader(root, file, &memories).load();
}

Scenario parse_scenario_text(std::string_view text, const std::string& file, std::size_t readable) {
    if (auto s = parse_scenario_streamed(text, file, readable)) return std::move(*s);
    return parse_scenario_reference(text, file);
}

}  // namespace

Scenario parse_scenario_reference(std::string_view json_text, const std::string& file) {
    const Json root = parse_json_exact(json_text, file);
    return Loader(root, file).load();
}

}  // namespace exactattn::detail

namespace exactattn {

using detail::parse_scenario_text;

Scenario parse_scenario(std::string_view json_text, const std::string& file) {
    return parse_scenario_text(json_text, file, json_text.size());
}

Scenario load_scenario(const std::string& path_or_builtin) {
    if (path_or_builtin == "chapter14") return parse_scenario(builtin_chapter14(), "chapter14");
    const std::string text = read_input_file(path_or_builtin);
    return parse_scenario_text(text, path_or_builtin, text.capacity());
}

}  // namespace exactattn

namespace exactattn::detail {}  // namespace exactattn::detail
