// SPDX-License-Identifier: MIT
// exactattn: the one table of TeX commands that stand for one character.
#include "render/tex_commands.hpp"

#include <algorithm>
#include <iterator>

namespace exactattn::detail {

namespace {

constexpr TexCommand kCommands[] = {
    // Greek letters, the variant forms first where latex_escape writes them (ε as \varepsilon).
    {"alpha", "α", true, true},
    {"beta", "β", true, true},
    {"gamma", "γ", true, true},
    {"delta", "δ", true, true},
    {"varepsilon", "ε", true, true},
    {"epsilon", "ε", true, false},
    {"zeta", "ζ", true, true},
    {"eta", "η", true, true},
    {"theta", "θ", true, true},
    {"iota", "ι", true, true},
    {"kappa", "κ", true, true},
    {"lambda", "λ", true, true},
    {"mu", "μ", true, true},
    {"nu", "ν", true, true},
    {"xi", "ξ", true, true},
    {"pi", "π", true, true},
    {"rho", "ρ", true, true},
    {"varsigma", "ς", true, true},
    {"sigma", "σ", true, true},
    {"tau", "τ", true, true},
    {"upsilon", "υ", true, true},
    {"varphi", "φ", true, true},
    {"phi", "φ", true, false},
    {"chi", "χ", true, true},
    {"psi", "ψ", true, true},
    {"omega", "ω", true, true},
    {"Gamma", "Γ", true, true},
    {"Delta", "Δ", true, true},
    {"Theta", "Θ", true, true},
    {"Lambda", "Λ", true, true},
    {"Xi", "Ξ", true, true},
    {"Pi", "Π", true, true},
    {"Sigma", "Σ", true, true},
    {"Upsilon", "Υ", true, true},
    {"Phi", "Φ", true, true},
    {"Psi", "Ψ", true, true},
    {"Omega", "Ω", true, true},
    // Relations, operators and dots.
    {"approx", "≈", false, true},
    {"to", "→", false, true},
    {"cdot", "·", false, true},
    {"times", "×", false, true},
    {"le", "≤", false, true},
    {"leq", "≤", false, false},
    {"ge", "≥", false, true},
    {"geq", "≥", false, false},
    {"ne", "≠", false, true},
    {"neq", "≠", false, false},
    {"infty", "∞", false, true},
    {"pm", "±", false, true},
    {"in", "∈", false, true},
    {"equiv", "≡", false, true},
    {"sum", "Σ", false, false},
    {"ldots", "…", false, false},
    {"dots", "…", false, false},
    {"cdots", "⋯", false, false},
    {"top", "ᵀ", false, false},
    {"mid", "|", false, false},
    {"lvert", "|", false, false},
    {"rvert", "|", false, false},
};

}  // namespace

const TexCommand* find_tex_command(std::string_view name) {
    const auto it =
        std::find_if(std::begin(kCommands), std::end(kCommands), [&](const TexCommand& c) { return c.name == name; });
    return it == std::end(kCommands) ? nullptr : &*it;
}

const TexCommand* tex_command_writing(std::string_view s) {
    const auto it = std::find_if(std::begin(kCommands), std::end(kCommands),
                                 [&](const TexCommand& c) { return c.written && s.starts_with(c.text); });
    return it == std::end(kCommands) ? nullptr : &*it;
}

}  // namespace exactattn::detail
