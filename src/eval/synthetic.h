// Synthetic gsm8k-format arithmetic word problems with known answers, for running
// the whole eval path without downloading gsm8k (`servebench eval make-synthetic`).
// Deterministic: the same (seed, count) always gives the same documents.
//
// The question grammar is a contract with the simulated engine's answering mode
// (sim/answer_oracle.cc parses it independently); docs/eval.md states it:
//   "<Name> has <a> <items>." then 1-3 steps, each one of
//     "<He|She> buys <b> more <items>."                      (+b)
//     "<He|She> gives away <b> <items>."                     (-b, never below 0)
//     "<He|She> buys <b> boxes with <c> <items> in each box." (+b*c)
//   then "How many <items> does <Name> have now?" — all on one line.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "eval/dataset.h"

namespace servebench::eval {

// `count` problems for `seed`; the answer is a worked solution ending "#### N".
std::vector<GsmDoc> MakeSyntheticGsm(uint64_t seed, size_t count);

}  // namespace servebench::eval
