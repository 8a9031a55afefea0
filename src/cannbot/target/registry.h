// The registered targets, and the one place a target's name is turned into a Target.
//
// Thread-safety: immutable after first use; safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cannbot/target/target.h"

namespace cannbot::target {

// Every registered target, the default first.
const std::vector<const Target*>& All();

// The target a request gets when it names none (the CPU).
const Target& Default();

// `t`, or the default target when `t` is null.
const Target& OrDefault(const Target* t);

// The target called `name`. InvalidArgument naming `field` and the allowed values otherwise:
// "field 'target' must be one of: cpu, ascendc (got \"cuda\")".
Result<const Target*> Parse(std::string_view name, std::string_view field = "target");

// "cpu, ascendc": for help texts.
std::string Names();

}  // namespace cannbot::target
