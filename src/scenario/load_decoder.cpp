// SPDX-License-Identifier: MIT
// exactattn: scenario sections for the decoder — `decoder` and `rollouts`.
#include "scenario/load_decoder.hpp"

#include <fmt/format.h>

#include "exactattn/limits.hpp"
#include "core/names.hpp"
#include "scenario/enum_names.hpp"
#include "scenario/load.hpp"

namespace exactattn {

const RolloutSpec& Scenario::rollout(const std::string& name) const {
    return detail::find_named(rollouts, name, "rollout", "rollouts");
}

Vector Scenario::decoder_initial(const std::string& name) const {
    if (!decoder) throw reference_error("no decoder is declared");
    if (decoder->initial) return *decoder->initial;
    const Memory& m = source(name).states;
    return m.row(m.rows() - 1);
}

namespace detail {

namespace {

class DecoderLoader {
  public:
    DecoderLoader(const Json& root, const Reader& r, Scenario& s) : root_(root), r_(r), s_(s) {}

    void load() {
        if (root_.contains("decoder")) s_.decoder = decoder(root_["decoder"]);
        const auto allowed = {"source", "reference", "steps", "cross_entropy", "digits", "note", "number", "caption"};
        r_.each_object(root_, "rollouts", allowed, [&](const std::string& name, const Json& v, const std::string& ptr) {
            s_.rollouts.push_back(rollout(name, v, ptr));
        });
    }

  private:
    Decoder decoder(const Json& v) {
        const std::string ptr = "/decoder";
        r_.object(v, ptr);
        r_.only_keys(v, ptr,
                     {"activation", "recurrent", "input", "context", "bias", "initial", "query", "output",
                      "output_reads", "output_bias", "vocabulary", "start", "end", "ties", "note"});
        for (const char* k : {"recurrent", "input", "context", "bias", "output", "vocabulary", "start"}) {
            if (!v.contains(k)) throw shape_error(fmt::format("the decoder needs \"{}\"", k), r_.at(ptr));
        }
        Decoder d;
        if (v.contains("activation")) {
            d.activation = r_.choice(v["activation"], ptr + "/activation", "value", activation_names());
        }
        // The vocabulary first: its size and embedding width are what the matrices are checked
        // against, and a huge one is refused before anything else is read.
        const std::string vp = ptr + "/vocabulary";
        const Json& vocab = r_.object(v["vocabulary"], vp);
        if (static_cast<std::int64_t>(vocab.size()) > limits().max_target_vocabulary) {
            throw over_limit(Limit::max_target_vocabulary,
                             fmt::format("the target vocabulary has {} tokens", vocab.size()), r_.at(vp));
        }
        for (const auto& [token, e] : vocab.items()) {
            const std::string tp = pointer_join(vp, token);
            if (token.empty() || token.find(' ') != std::string::npos) {
                throw shape_error("a target token is not empty and has no space", r_.at(tp));
            }
            Vector emb = r_.vector(e, tp);
            if (!d.vocabulary.empty() && emb.size() != d.vocabulary.front().second.size()) {
                throw shape_error(fmt::format("embedding of \"{}\" has width {}; the first has width {}", token,
                                              emb.size(), d.vocabulary.front().second.size()),
                                  r_.at(tp));
            }
            if (emb.empty()) throw shape_error("a target embedding needs at least one coordinate", r_.at(tp));
            d.vocabulary.emplace_back(token, std::move(emb));
        }
        d.recurrent = r_.matrix(v["recurrent"], ptr + "/recurrent");
        d.input = r_.matrix(v["input"], ptr + "/input");
        d.context = r_.matrix(v["context"], ptr + "/context");
        d.bias = r_.vector(v["bias"], ptr + "/bias");
        d.output = r_.matrix(v["output"], ptr + "/output");
        if (v.contains("output_bias")) d.output_bias = r_.vector(v["output_bias"], ptr + "/output_bias");
        if (v.contains("output_reads")) {
            d.output_context = r_.choice<bool>(v["output_reads"], ptr + "/output_reads", "value",
                                               {{"state-and-context", true}, {"state", false}});
        }
        if (v.contains("initial")) {
            if (v["initial"].is_string()) {
                (void)r_.choice<bool>(v["initial"], ptr + "/initial", "value", {{"encoder", true}});
            } else {
                d.initial = r_.vector(v["initial"], ptr + "/initial");
            }
        } else {
            throw shape_error("the decoder needs \"initial\": a state s_0, or \"encoder\" for the source's last state",
                              r_.at(ptr));
        }
        if (v.contains("query")) {
            if (v["query"].is_string()) {
                (void)r_.choice<bool>(v["query"], ptr + "/query", "value", {{"state", true}});
            } else {
                d.query = r_.matrix(v["query"], ptr + "/query");
            }
        }
        d.start = r_.string(v["start"], ptr + "/start");
        if (v.contains("end")) d.end = r_.string(v["end"], ptr + "/end");
        if (v.contains("ties")) {
            d.ties = r_.choice(v["ties"], ptr + "/ties", "value", tie_rule_names());
        }
        // Decoder::check names the declaration key at fault in the error's context: placed at that
        // key's pointer, the message points at the one entry to fix.
        try {
            d.check();
        } catch (const Error& e) {
            if (e.in_file()) throw;
            const std::string key = e.where().context;
            throw Error(e.kind(), r_.at(key.empty() || !v.contains(key) ? ptr : ptr + "/" + key), e.reason());
        }
        return d;
    }

    RolloutSpec rollout(const std::string& name, const Json& v, const std::string& ptr) {
        if (!s_.decoder) throw reference_error("a rollout needs a declared \"decoder\"", r_.at(ptr));
        const Decoder& d = *s_.decoder;
        RolloutSpec spec;
        spec.name = name;
        if (!v.contains("source")) throw shape_error("missing \"source\"", r_.at(ptr));
        spec.source = r_.string(v["source"], ptr + "/source");
        const Source& src = r_.located(ptr + "/source", [&]() -> const Source& { return s_.source(spec.source); });
        if (src.states.width() != d.context_width()) {
            throw shape_error(fmt::format("the source \"{}\" has states of width {}; the decoder's context matrix C "
                                          "has {} rows",
                                          spec.source, src.states.width(), d.context_width()),
                              r_.at(ptr + "/source"));
        }
        if (!d.initial && src.states.width() != d.width()) {
            throw shape_error(fmt::format("\"initial\": \"encoder\" makes s_0 the source's last state, of width {}; "
                                          "the decoder state has width {}",
                                          src.states.width(), d.width()),
                              r_.at(ptr + "/source"));
        }
        if (v.contains("reference")) {
            const std::string rp = ptr + "/reference";
            const auto& a = r_.array(v["reference"], rp);
            if (static_cast<std::int64_t>(a.size()) > limits().max_decoder_steps) {
                throw over_limit(Limit::max_decoder_steps,
                                 fmt::format("the reference has {} tokens, one step each", a.size()), r_.at(rp));
            }
            for (std::size_t i = 0; i < a.size(); ++i) {
                spec.reference.push_back(r_.string(a[i], pointer_join(rp, i)));
                r_.located(pointer_join(rp, i), [&] { (void)d.index(spec.reference.back()); });
            }
        }
        if (v.contains("steps")) {
            spec.steps =
                static_cast<std::size_t>(r_.integer(v["steps"], ptr + "/steps", 1, limits().max_decoder_steps));
            if (!spec.reference.empty() && spec.steps > spec.reference.size()) {
                throw shape_error(fmt::format("{} steps but {} reference tokens: teacher forcing supplies one "
                                              "reference token a step",
                                              spec.steps, spec.reference.size()),
                                  r_.at(ptr + "/steps"));
            }
        } else if (spec.reference.empty()) {
            throw shape_error("a rollout without a reference needs \"steps\"", r_.at(ptr));
        }
        if (v.contains("cross_entropy")) {
            if (!v["cross_entropy"].is_boolean()) {
                throw shape_error(fmt::format("expected true or false, found {}", json_type(v["cross_entropy"])),
                                  r_.at(ptr + "/cross_entropy"));
            }
            spec.cross_entropy = v["cross_entropy"].get<bool>();
            if (spec.cross_entropy && spec.reference.empty()) {
                throw shape_error("the cross-entropy is of the reference tokens: declare \"reference\"",
                                  r_.at(ptr + "/cross_entropy"));
            }
        }
        if (v.contains("digits")) spec.digits = static_cast<int>(r_.integer(v["digits"], ptr + "/digits", 1, 100));
        if (v.contains("note")) spec.note = r_.string(v["note"], ptr + "/note");
        if (v.contains("number")) spec.number = table_number(r_, v["number"], ptr + "/number");
        if (v.contains("caption")) spec.caption = r_.string(v["caption"], ptr + "/caption");
        return spec;
    }

    const Json& root_;
    const Reader& r_;
    Scenario& s_;
};

}  // namespace

void parse_decoder_sections(const Json& root, const Reader& r, Scenario& s) { DecoderLoader(root, r, s).load(); }

}  // namespace detail

}  // namespace exactattn
