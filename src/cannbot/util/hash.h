// Content hashing for caches: SHA-256 as lower-case hex.
//
// Thread-safety: stateless; safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace cannbot {

std::string Sha256Hex(std::string_view data);

}  // namespace cannbot
